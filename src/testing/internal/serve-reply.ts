import type { ServerResponse } from 'node:http'
import type { NormalizedResponse } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import { formatSse } from '../../providers/sse.ts'
import type { ProviderAdapter, WriteResponseOptions } from '../../providers/types.ts'
import { pause, sendBody, writeFlushed } from './http-io.ts'
import { splitTextDeltas } from './split-text-deltas.ts'

/** Everything needed to put one reply on the wire. */
export interface ReplyPlan {
  adapter: ProviderAdapter
  response: NormalizedResponse
  writeOptions: WriteResponseOptions
  stream: boolean
  /** Extra response headers (request ids). */
  headers: Record<string, string>
  chunkDelayMs: number
  chunkSize: number | undefined
  /** Aborts when the server closes or the client leaves. */
  signal: AbortSignal
  /** A `cut_stream` fault: send this many events (or, for a plain reply, half the body), then drop. */
  cutAfterEvents?: number
  /** A `malformed_json` fault: the JSON is cut short. */
  malformed?: boolean
}

/** SSE as the providers send it; `no-cache` because proxies must not buffer a stream. */
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }

/**
 * Sends a reply, plain or streamed, as the adapter writes it: the scripted provider never writes an
 * API's wire format itself, so it can never drift from what the adapters read back.
 *
 * @example
 * await serveReply(res, { adapter: openaiChat, response, writeOptions: {}, stream: true, headers: {}, chunkDelayMs: 0, chunkSize: undefined, signal })
 */
export async function serveReply(res: ServerResponse, plan: ReplyPlan): Promise<void> {
  if (plan.stream) await serveStream(res, plan)
  else await servePlain(res, plan)
}

/**
 * The events of a streamed reply, as the adapter writes them, with text deltas split by `chunkSize`.
 *
 * @example
 * replyEvents(anthropicMessages, response, {}, 8).map((e) => e.event)
 */
export function replyEvents(
  adapter: ProviderAdapter,
  response: NormalizedResponse,
  writeOptions: WriteResponseOptions,
  chunkSize: number | undefined,
): SseChunk[] {
  const events = adapter.writeStream(response, writeOptions)
  return chunkSize === undefined ? events : splitTextDeltas(adapter, response, events, chunkSize)
}

async function servePlain(res: ServerResponse, plan: ReplyPlan): Promise<void> {
  const body = JSON.stringify(plan.adapter.writeResponse(plan.response, plan.writeOptions))
  if (plan.malformed) {
    // Any strict prefix of a JSON object is invalid JSON: its closing brace is the last character.
    sendBody(
      res,
      200,
      'application/json',
      body.slice(0, Math.max(1, Math.floor(body.length / 2))),
      plan.headers,
    )
    return
  }
  if (plan.cutAfterEvents === undefined) {
    sendBody(res, 200, 'application/json', body, plan.headers)
    return
  }
  // A plain body has no events to count: half of it arrives, then the connection drops, which the
  // client sees as a body shorter than its content-length.
  res.writeHead(200, {
    ...plan.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  })
  await writeFlushed(res, body.slice(0, Math.floor(body.length / 2)))
  res.destroy()
}

async function serveStream(res: ServerResponse, plan: ReplyPlan): Promise<void> {
  const events = replyEvents(plan.adapter, plan.response, plan.writeOptions, plan.chunkSize)
  if (plan.malformed) {
    // The first event's JSON is cut in half: the client's JSON.parse of it throws, as with a proxy
    // that mangles a stream.
    const first = events[0]
    if (first)
      events[0] = { ...first, data: first.data.slice(0, Math.max(1, Math.floor(first.data.length / 2))) }
  }
  const limit = plan.cutAfterEvents ?? events.length
  res.writeHead(200, { ...plan.headers, ...SSE_HEADERS })
  // Headers go out now: a client measuring time to first byte must not wait for the first event.
  res.flushHeaders()
  for (let i = 0; i < Math.min(limit, events.length); i++) {
    if (i > 0) await pause(plan.chunkDelayMs, plan.signal)
    if (plan.signal.aborted) return
    await writeFlushed(res, formatSse(events[i] as SseChunk))
  }
  if (plan.signal.aborted) return
  if (plan.cutAfterEvents !== undefined) {
    // Dropped even when every event went out: the body never ends properly, as on a real cut.
    res.destroy()
    return
  }
  res.end()
}
