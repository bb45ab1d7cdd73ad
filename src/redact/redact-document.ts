import { createRedactor } from './create-redactor.ts'
import type { RedactionResult, Redactor } from './types.ts'

let shared: Redactor | undefined

/**
 * The one function every writer calls before anything reaches disk. Returns a redacted copy (the input
 * is never mutated; unchanged subtrees are shared, not cloned), one record per replaced location, and
 * `partial: true` when a rule failed and a value was dropped instead.
 *
 * Without `redactor`, the defaults plus the process-wide rules of `redaction.*` apply.
 *
 * @example
 * const { value, records } = redactDocument({ headers: { authorization: 'Bearer abc123def456' } })
 * value.headers.authorization // '[REDACTED:sensitive-key]'
 * records // [{ path: '/headers/authorization', rule: 'sensitive-key', marker: '[REDACTED:sensitive-key]' }]
 */
export function redactDocument<T>(doc: T, options: { redactor?: Redactor } = {}): RedactionResult<T> {
  shared ??= createRedactor()
  const redactor = options.redactor ?? shared
  return redactor.redact(doc)
}
