import type { JsonValue } from '../../../case/schema/json.ts'

/**
 * A tool result that says it is an error, the way agents report a failure on APIs with no error flag:
 * an object whose top-level `error` is a non-empty string, an object or `true`.
 *
 * @example
 * errorLike({ error: 'no order Z99' }) // true
 * errorLike({ error: null, ok: true }) // false
 */
export function errorLike(value: JsonValue | undefined): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const error = (value as { error?: unknown }).error
  return (
    (typeof error === 'string' && error.length > 0) ||
    error === true ||
    (typeof error === 'object' && error !== null)
  )
}
