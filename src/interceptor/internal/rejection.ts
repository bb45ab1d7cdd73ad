/**
 * The error a model call's `fetch` should reject with, carried beside the `Response.error()` that stands
 * for it: an MSW handler can only answer with a network error (which fetch turns into its own
 * `TypeError: fetch failed`), while the replay fast path (replay-fetch.ts) can reject with the error
 * itself — a crash test's timeout, which each SDK must see as its own timeout, or a recorded network
 * error with its cause.
 */
const REJECTIONS = new WeakMap<Response, unknown>()

/**
 * A network error that remembers `reason`.
 *
 * @example
 * return rejectionResponse(error) // msw: fetch rejects; the fast path: rejects with `error`
 */
export function rejectionResponse(reason: unknown): Response {
  const response = Response.error()
  // Only what fetch itself rejects with (a network error, an abort or a timeout); anything else (a
  // crashlab error on the way) stays fetch's plain network error, as it is through MSW.
  if (reason instanceof TypeError || reason instanceof DOMException) REJECTIONS.set(response, reason)
  return response
}

/**
 * What a network-error response stands for: the error given to `rejectionResponse`, else fetch's own.
 *
 * @example
 * if (response.type === 'error') throw rejectionOf(response)
 */
export function rejectionOf(response: Response): unknown {
  return REJECTIONS.get(response) ?? new TypeError('fetch failed')
}
