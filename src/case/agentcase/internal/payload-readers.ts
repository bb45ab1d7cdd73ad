import type { JsonObject, JsonValue } from '../../schema/json.ts'
import type { Usage } from '../../schema/normalized.ts'
import type { StepError } from '../../schema/step.ts'

/**
 * Small readers for free-JSON payloads. A payload may hold anything, so every read is defensive; the
 * imported run is validated as a whole at the end, which is where a wrong type is reported.
 */

/**
 * `v` when it is a plain object, else an empty one.
 *
 * @example
 * asObject(event.payload.input).messages
 */
export function asObject(v: JsonValue | undefined): JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}
}

/**
 * `v` when it is a string, else `fallback`.
 *
 * @example
 * asString(payload.name, 'unknown')
 */
export function asString(v: JsonValue | undefined, fallback: string): string {
  return typeof v === 'string' ? v : fallback
}

/**
 * The error of an exception payload (`exception_type`, `message`, and crashlab's `error_code` and
 * `http_status` when present); the inverse of how an export writes it.
 *
 * @example
 * errorFromException({ exception_type: 'TimeoutError', message: 'no answer', handled: false })
 */
export function errorFromException(p: JsonObject): StepError {
  return {
    name: asString(p.exception_type, 'Error'),
    message: asString(p.message, ''),
    ...(p.error_code !== undefined && { code: p.error_code as string }),
    ...(p.http_status !== undefined && { status: p.http_status as number }),
  }
}

/**
 * crashlab usage from the snake_case payload form (`input_tokens`, …); null when absent.
 *
 * @example
 * usageFromPayload({ input_tokens: 10, output_tokens: 2 }) // { inputTokens: 10, outputTokens: 2 }
 */
export function usageFromPayload(v: JsonValue | undefined): Usage | null {
  if (v === undefined || v === null) return null
  const u = asObject(v)
  return {
    inputTokens: u.input_tokens as number,
    outputTokens: u.output_tokens as number,
    ...(u.cached_tokens !== undefined && { cachedTokens: u.cached_tokens as number }),
    ...(u.reasoning_tokens !== undefined && { reasoningTokens: u.reasoning_tokens as number }),
  }
}
