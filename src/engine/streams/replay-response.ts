import { binaryOf } from '../../case/binary-bodies.ts'
import type { StepError, WireResponse } from '../../case/schema/step.ts'
import { formatSse } from '../../providers/sse.ts'
import { fromStepError } from '../values.ts'
import { NULL_BODY_STATUSES, withUrl } from './record-response.ts'

export interface ReplayOptions {
  /** The recorded stream ended early: the replayed one errors after the last recorded event, as it did. */
  incomplete: boolean
  /** Wait for each event's recorded `atMs` instead of serving at once. */
  timing: boolean
  url: string
}

/**
 * The recorded response as a fetch Response: status, headers, and the body; a streamed body is
 * served one recorded event per chunk, so the caller's parser sees the same event boundaries.
 *
 * @example
 * return replayResponse(step.response.wire, { incomplete: false, timing: false, url: request.url })
 */
export function replayResponse(wire: WireResponse, options: ReplayOptions): Response {
  const init = { status: wire.status, headers: wire.headers }
  if (NULL_BODY_STATUSES.has(wire.status)) return withUrl(new Response(null, init), options.url)
  if (!wire.chunks) {
    const text =
      binaryOf(wire.bodyFile) ?? wire.bodyText ?? (wire.body === null ? '' : JSON.stringify(wire.body))
    return withUrl(new Response(text, init), options.url)
  }
  const chunks = wire.chunks
  const encoder = new TextEncoder()
  const t0 = performance.now()
  let i = 0
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = chunks[i++]
        if (!chunk) {
          // A cut stream replays as a cut stream: the SDK meets the same error at the same place.
          if (options.incomplete) controller.error(new TypeError('terminated'))
          else controller.close()
          return
        }
        if (options.timing) {
          const wait = chunk.atMs - (performance.now() - t0)
          if (wait > 0) await new Promise((r) => setTimeout(r, wait))
        }
        controller.enqueue(encoder.encode(formatSse(chunk)))
      },
    },
    { highWaterMark: 0 },
  )
  return withUrl(new Response(body, init), options.url)
}

/**
 * The error a fetch rejects with when the connection fails: a `TypeError('fetch failed')` whose cause
 * carries the details, as Node's fetch does, so SDKs classify it as a connection error (and retry it
 * the same way at replay as they did when it was recorded).
 *
 * @example
 * throw networkError(new Error('socket hang up'))
 */
export function networkError(cause: unknown): Error {
  return new TypeError('fetch failed', { cause })
}

/** A recorded network error, thrown again: an abort stays an AbortError, anything else is a failed fetch. */
export function replayNetworkError(recorded: StepError): Error {
  if (recorded.name === 'AbortError') return new DOMException(recorded.message, 'AbortError')
  if (recorded.name === 'TypeError' && recorded.message === 'fetch failed') {
    const cause = new Error(recorded.code ?? 'connection failed')
    if (recorded.code) Object.assign(cause, { code: recorded.code })
    return networkError(cause)
  }
  return networkError(fromStepError(recorded))
}
