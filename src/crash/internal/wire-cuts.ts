/**
 * The network failures of the model faults, shaped as Node's fetch (undici) reports them, so that each
 * SDK classifies them as it classifies the real thing:
 *
 * - a timeout is the `TimeoutError` DOMException that `AbortSignal.timeout()` aborts a fetch with. The
 *   OpenAI and Anthropic SDKs see "timeout" in it and throw their `APIConnectionTimeoutError`; the AI SDK
 *   passes a `TimeoutError` through as its own timeouts do; `@google/genai` passes it through untouched.
 * - a reset is undici's `TypeError: fetch failed` with an `ECONNRESET` cause: a connection error to
 *   every SDK (`APIConnectionError`, the AI SDK's retryable `APICallError`), never a timeout.
 * - a cut body is undici's `TypeError: terminated` with the socket error as its cause.
 */

/**
 * The rejection of a fetch whose time ran out.
 *
 * @example
 * timeoutError().name // 'TimeoutError'
 */
export function timeoutError(): Error {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError')
}

/**
 * The rejection of a fetch whose connection was reset before any answer.
 *
 * @example
 * connectionResetError().cause // Error: read ECONNRESET, code 'ECONNRESET'
 */
export function connectionResetError(): Error {
  const cause = Object.assign(new Error('read ECONNRESET'), {
    errno: -104,
    code: 'ECONNRESET',
    syscall: 'read',
  })
  return new TypeError('fetch failed', { cause })
}

/**
 * The error a response body's reader gets when the connection drops mid-body.
 *
 * @example
 * streamTerminatedError().message // 'terminated'
 */
export function streamTerminatedError(): Error {
  const cause = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' })
  return new TypeError('terminated', { cause })
}

/**
 * A body of the first `count` SSE events (at most all but the last), then `error`. Each event is its own
 * chunk, handed over on read, so a reader gets every event before the error.
 */
export function cutSse(events: readonly string[], count: number, error: Error): ReadableStream<Uint8Array> {
  const sent = events.slice(0, Math.min(count, Math.max(0, events.length - 1)))
  return erroringStream(
    sent.map((e) => new TextEncoder().encode(e)),
    error,
  )
}

/** A body of the first `count` chunks of `size` bytes of `text` (at most all but its last byte), then `error`. */
export function cutBody(text: string, count: number, size: number, error: Error): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  const end = Math.min(count * size, Math.max(0, bytes.length - 1))
  const chunks: Uint8Array[] = []
  for (let at = 0; at < end; at += size) chunks.push(bytes.subarray(at, Math.min(at + size, end)))
  return erroringStream(chunks, error)
}

/**
 * Pull-based on purpose: `controller.error()` drops chunks still queued, so each chunk is enqueued only
 * when a reader asks, and the error comes on the read after the last one.
 */
function erroringStream(chunks: Uint8Array[], error: Error): ReadableStream<Uint8Array> {
  let next = 0
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[next++]
        if (chunk) controller.enqueue(chunk)
        else controller.error(error)
      },
    },
    { highWaterMark: 0 },
  )
}
