/**
 * Exceptions are recorded as text only (type, message, stack), never as the object: an error object may
 * hold a request with its headers, a socket, or a cycle. The stack is kept because it is what a person
 * reading the case needs first; it passes the same redaction as every other string on write.
 */

/**
 * The `exception` payload of a thrown value (any value can be thrown in JavaScript).
 *
 * @example
 * describeError(new TypeError('x is undefined'))
 * // { exception_type: 'TypeError', message: 'x is undefined', traceback: 'TypeError: x is undefined\n    at …' }
 */
export function describeError(error: unknown): {
  exception_type: string
  message: string
  traceback?: string
} {
  if (error instanceof Error) {
    const type = safe(() => error.name) || safe(() => error.constructor.name) || 'Error'
    const stack = safe(() => error.stack)
    return {
      exception_type: type,
      message: safe(() => String(error.message)),
      ...(stack ? { traceback: stack } : {}),
    }
  }
  return { exception_type: kindOf(error), message: safe(() => String(error)) }
}

/**
 * A failed tool's `error` value: an `Error` becomes `{ type, message }` (the shape crashlab's own export
 * writes), anything else is kept for the JSON copy.
 *
 * @example
 * toolError(new RangeError('amount too large')) // { type: 'RangeError', message: 'amount too large' }
 */
export function toolError(error: unknown): unknown {
  if (!(error instanceof Error)) return error
  const { exception_type, message } = describeError(error)
  return { type: exception_type, message }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  return typeof value === 'object' ? safe(() => value.constructor?.name) || 'object' : typeof value
}

/** Reading an application's error must never throw (a getter may, a Proxy may). */
function safe(read: () => string | undefined): string {
  try {
    return read() ?? ''
  } catch {
    return ''
  }
}
