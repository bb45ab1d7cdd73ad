import type { SseChunk, WireResponse } from '../../case/schema/step.ts'
import { SseParser } from '../../providers/sse.ts'
import { readBinaryBody } from '../internal/binary-body.ts'
import { readBody } from '../internal/read-request.ts'
import type { Session } from '../session.ts'

/**
 * Response headers that describe the transport, not the answer: the recorded body is decoded and
 * whole, so these would lie about it at replay (a gzip header on plain bytes, a stale length).
 */
const HOP_HEADERS = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
])
/** Never stored: a session cookie is a credential. */
const SECRET_HEADERS = new Set(['set-cookie', 'set-cookie2'])

/** Statuses whose Response must have no body. */
export const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

/**
 * How a recorded stream ended early: `error` (the connection was cut, or it was still open when the run
 * ended) or `cancel` (the caller stopped reading: SDKs also cancel after the terminal event, so whether
 * a cancelled stream is incomplete is decided by what arrived). Null when it ended properly.
 */
export type StreamEnd = 'error' | 'cancel' | null

/** Called once per exchange with what was recorded. */
export type CompleteRecording = (response: WireResponse, end: StreamEnd) => void

/** The headers of `res` as stored and as given back to the caller. */
export function keptHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {}
  res.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name) && !SECRET_HEADERS.has(name)) out[name] = value
  })
  return out
}

/**
 * Records `res` and returns the Response the caller gets. A streamed (SSE) body is split with
 * `tee()`: one branch goes to the caller chunk for chunk as it arrives, the other is parsed into
 * events with their arrival times; the step is completed when the stream ends, and a stream that
 * errors or that the caller cancels is completed `incomplete` with what arrived. Any other body is
 * read whole and recorded parsed; a binary one (audio, images, PDFs) as a `bodyFile` whose bytes the
 * cassette writer stores beside the cassette.
 *
 * @example
 * return recordResponse(session, await upstream(req), t0, (wire, incomplete) => addStep(wire, incomplete))
 */
export async function recordResponse(
  session: Session,
  res: Response,
  t0: number,
  complete: CompleteRecording,
): Promise<Response> {
  const headers = keptHeaders(res)
  const init = { status: res.status, statusText: res.statusText, headers }
  const isSse = (res.headers.get('content-type') ?? '').includes('text/event-stream')
  if (!res.body || NULL_BODY_STATUSES.has(res.status)) {
    complete({ status: res.status, headers, body: null }, null)
    return withUrl(new Response(null, init), res.url)
  }
  if (!isSse) {
    const bytes = new Uint8Array(await res.arrayBuffer())
    const type = headers['content-type']
    const binary = readBinaryBody(bytes, type, session.redactor)
    if (binary) {
      // Stored with the stored bytes' content type (a multipart body gets a fixed boundary); the caller
      // gets the response as it came.
      const stored = { ...headers, 'content-type': binary.contentType }
      complete({ status: res.status, headers: stored, body: null, bodyFile: binary.bodyFile }, null)
    } else {
      complete({ status: res.status, headers, ...readBody(bytes, type) }, null)
    }
    return withUrl(new Response(bytes, init), res.url)
  }

  const [toCaller, toRecorder] = res.body.tee()
  const chunks: SseChunk[] = []
  const parser = new SseParser()
  const decoder = new TextDecoder()
  const recorder = toRecorder.getReader()
  let cancelled = false
  let settled = false
  const settle = (end: StreamEnd) => {
    if (settled) return
    settled = true
    complete({ status: res.status, headers, body: null, chunks: [...chunks] }, end)
  }
  const done = (async () => {
    try {
      for (;;) {
        const { done: end, value } = await recorder.read()
        const at = Math.round(performance.now() - t0)
        if (end) {
          chunks.push(...parser.push(decoder.decode(), at), ...parser.end(at))
          return settle(cancelled ? 'cancel' : null)
        }
        chunks.push(...parser.push(decoder.decode(value, { stream: true }), at))
      }
    } catch {
      chunks.push(...parser.end(Math.round(performance.now() - t0)))
      settle('error')
    }
  })()
  session.track({ done, flush: () => settle('error') })

  // tee() only cancels its source once both branches are cancelled, and says nothing when one is:
  // this wrapper sees the caller's cancel, marks the recording incomplete and cancels the recorder's
  // branch too, so the upstream connection is closed as it would be without crashlab.
  const reader = toCaller.getReader()
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: end, value } = await reader.read()
          if (end) controller.close()
          else controller.enqueue(value)
        } catch (error) {
          controller.error(error)
        }
      },
      cancel(reason) {
        cancelled = true
        // The recorder's branch may still hold chunks the caller already had (the terminal event an
        // SDK cancels after): let it drain them, which takes only microtasks, before cancelling it.
        setImmediate(() => recorder.cancel(reason).catch(() => {}))
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  return withUrl(new Response(body, init), res.url)
}

/** A constructed Response has an empty `url`; SDKs log it, so it keeps the one the caller asked. */
export function withUrl(res: Response, url: string): Response {
  if (url) Object.defineProperty(res, 'url', { value: url })
  return res
}
