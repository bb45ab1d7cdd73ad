import type { JsonValue } from '../case/schema/json.ts'
import type { StepError } from '../case/schema/step.ts'
import { CrashlabError } from '../errors.ts'

/** The command every replay error names: it records the cassette again against the live provider. */
export const RERECORD_COMMAND = 'npx crashlab vitest --record'

/**
 * `value` as JSON data, as the run stores it: `undefined` becomes null, and what JSON cannot carry
 * (a cycle, a bigint) becomes its string form rather than failing the run.
 */
export function toJsonValue(value: unknown): JsonValue {
  if (value === undefined) return null
  try {
    const text = JSON.stringify(value)
    return text === undefined ? null : (JSON.parse(text) as JsonValue)
  } catch {
    return String(value)
  }
}

/** An error as data: name, message, and the `code` and `status` that Node and SDK errors carry. */
export function toStepError(error: unknown): StepError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) }
  const out: StepError = { name: error.name, message: error.message }
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') out.code = code
  const status = (error as { status?: unknown }).status
  if (typeof status === 'number' && Number.isInteger(status)) out.status = status
  return out
}

/** An Error rebuilt from a recorded one: same name, message and code, so an agent's `catch` branches the same. */
export function fromStepError(recorded: StepError): Error {
  const error = new Error(recorded.message)
  error.name = recorded.name
  if (recorded.code !== undefined) Object.assign(error, { code: recorded.code })
  if (recorded.status !== undefined) Object.assign(error, { status: recorded.status })
  return error
}

/** A failure of crashlab's own capture (a hook, a body it could not read): kept on the Session. */
export function captureError(what: string, cause: unknown): CrashlabError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new CrashlabError('E_CAPTURE', `${what}: ${reason}`, { cause })
}
