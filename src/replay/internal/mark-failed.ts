import type { Run } from '../../case/schema/run.ts'
import { isCrashlabError } from '../../errors.ts'

/**
 * A replay that failed (a divergence, steps left unused) ends as an error run that names the failure,
 * also when the agent threw after it: crashlab answered the agent with a network error, so the agent's
 * error follows from the divergence.
 */
export function markFailed(run: Run, error: unknown): Run {
  const e = isCrashlabError(error)
    ? { name: error.name, message: error.message, code: error.code }
    : error instanceof Error
      ? { name: error.name, message: error.message }
      : { name: 'Error', message: String(error) }
  return { ...run, status: 'error', output: null, error: e }
}
