import type { HttpStep, SseChunk, WireResponse } from '../case/schema/step.ts'
import { REFUSAL_HEADER } from '../engine/refusal-response.ts'
import type { NewStep, Session } from '../engine/session.ts'
import { keptHeaders, withUrl } from '../engine/streams/record-response.ts'
import { formatSse, parseSse, SseParser, sseJson } from '../providers/sse.ts'
import { storedUrl } from './internal/mcp-wire.ts'
import { type McpUpstream, mcpExchange } from './mcp-exchange.ts'
import type { McpMessage } from './mcp-message.ts'

/**
 * MCP's older HTTP+SSE transport (protocol 2024-11-05, the SDK's `SSEClientTransport`): the client
 * opens `GET /sse`, whose first event, `endpoint`, names the URL to POST to (`/messages?sessionId=…`);
 * the server answers each POST `202 Accepted` and sends its JSON-RPC answer as a `message` event on the
 * GET stream.
 *
 * - record: the GET goes to the server and its events reach the caller as they come; when the first one
 *   is `endpoint`, the stream is an `http` step labelled `mcp:stream` (its request, status, headers and
 *   the `endpoint` event), and the POSTs to that endpoint are recorded like Streamable HTTP's
 *   (`mcpExchange`), except that each one's answer is the POST's `202` with the `message` events that
 *   answered it on the stream (by JSON-RPC id; a progress notification by its token; any other message
 *   of the server's while one request waits): the step is added when the answers arrived, or when the
 *   stream ended without them. What the server sends while no request waits is added to the stream
 *   step's events. Any other GET stream passes untouched.
 * - replay: a GET is answered by the first unused `mcp:stream` step with the same path: a stream that
 *   sends the recorded `endpoint` event (same path and session id), then stays open until the client
 *   closes it. Each POST to that endpoint is matched and readdressed as Streamable HTTP's are
 *   (`mcpExchange`); the recorded events are sent on the stream and the POST gets its status without
 *   them. A divergence is refused as Streamable HTTP's is.
 */

/** The label of the step a legacy stream is recorded as. */
export const LEGACY_STREAM_LABEL = 'mcp:stream'

/** A legacy stream of the Session, by the URL its `endpoint` event names. */
interface LegacyStream {
  post(request: Request, messages: McpMessage[], upstream: McpUpstream): Promise<Response>
}

const STREAMS = new WeakMap<Session, Map<string, LegacyStream>>()

function streamsOf(session: Session): Map<string, LegacyStream> {
  let streams = STREAMS.get(session)
  if (!streams) {
    streams = new Map()
    STREAMS.set(session, streams)
  }
  return streams
}

/**
 * The answer to a POST of MCP messages to the endpoint of a legacy stream this Session opened, or
 * undefined when the URL is no such endpoint (then it is a Streamable HTTP exchange).
 *
 * @example
 * const answer = legacyPost(session, request, messages, upstream) ?? mcpExchange(session, request, messages, upstream)
 */
export function legacyPost(
  session: Session,
  request: Request,
  messages: McpMessage[],
  upstream: McpUpstream,
): Promise<Response> | undefined {
  return STREAMS.get(session)?.get(new URL(request.url).href)?.post(request, messages, upstream)
}

/**
 * The answer to a GET that may open a legacy stream (`mayOpenLegacyMcpStream`): while recording, the
 * server's answer, watched for its `endpoint` event; in a replay, the recorded stream with the same
 * path, or undefined when there is none (the request is not this transport's).
 *
 * @example
 * const answer = await legacyStream(session, request, upstream) // undefined: not a recorded stream
 */
export async function legacyStream(
  session: Session,
  request: Request,
  upstream: McpUpstream,
): Promise<Response | undefined> {
  if (session.mode === 'replay') return replayedStream(session, request)
  if (session.mode === 'record') return recordedStream(session, request, upstream)
  return undefined
}

/** Hop-by-hop headers that no longer describe a body fetch has already decoded. */
const DECODED_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding']

/**
 * Sends the GET to the server and hands its stream to the caller chunk by chunk, reading its events as
 * they pass (before the caller sees them, so the endpoint is known before the client can POST to it).
 */
async function recordedStream(session: Session, request: Request, upstream: McpUpstream): Promise<Response> {
  const startedAt = new Date().toISOString()
  const t0 = performance.now()
  const res = await upstream(request)
  const isSse = (res.headers.get('content-type') ?? '').includes('text/event-stream')
  if (!res.ok || !res.body || !isSse) return res
  const parser = new SseParser()
  const decoder = new TextDecoder()
  let stream: RecordingStream | undefined
  let plain = false
  const read = (text: string, end: boolean) => {
    if (plain) return
    const at = Math.round(performance.now() - t0)
    const events = [...parser.push(text, at), ...(end ? parser.end(at) : [])]
    for (const event of events) {
      if (stream) stream.event(event)
      else if (event.event === 'endpoint') stream = opened(session, request, res, event, { startedAt, t0 })
      if (!stream) {
        // Not MCP's: what follows passes without being read.
        plain = true
        return
      }
    }
  }
  const reader = res.body.getReader()
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) {
            read(decoder.decode(), true)
            stream?.end()
            controller.close()
            return
          }
          read(decoder.decode(value, { stream: true }), false)
          controller.enqueue(value)
        } catch (error) {
          stream?.end()
          controller.error(error)
        }
      },
      cancel(reason) {
        stream?.end()
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  const headers = new Headers(res.headers)
  for (const name of DECODED_HEADERS) headers.delete(name)
  return withUrl(new Response(body, { status: res.status, statusText: res.statusText, headers }), res.url)
}

/** The stream step, added when the `endpoint` event arrives, and the stream registered by its endpoint. */
function opened(
  session: Session,
  request: Request,
  res: Response,
  endpoint: SseChunk,
  started: { startedAt: string; t0: number },
): RecordingStream | undefined {
  let url: URL
  try {
    url = new URL(endpoint.data, request.url)
  } catch {
    return undefined
  }
  const headers: Record<string, string> = {}
  const accept = request.headers.get('accept')
  if (accept !== null) headers.accept = accept
  const response: WireResponse = {
    status: res.status,
    headers: keptHeaders(res),
    body: null,
    chunks: [endpoint],
  }
  const step = session.addStep({
    type: 'http',
    label: LEGACY_STREAM_LABEL,
    timing: { startedAt: started.startedAt, durationMs: Math.round(performance.now() - started.t0) },
    error: null,
    request: { method: 'GET', url: storedUrl(request.url), headers, body: null },
    response,
  }) as HttpStep
  const stream = new RecordingStream(session, step, url.href, started.t0)
  streamsOf(session).set(url.href, stream)
  return stream
}

/** A POST whose answers are awaited on the stream: its request ids and progress tokens, and what came. */
interface Awaited {
  ids: Set<string | number>
  tokens: Set<unknown>
  events: SseChunk[]
  t0: number
  /** Settles when every request was answered, or the stream ended, or the run did. */
  finished: Promise<void>
  done: () => void
}

/** A legacy stream being recorded: pairs the server's events with the POSTs they answer. */
class RecordingStream implements LegacyStream {
  private readonly awaited = new Set<Awaited>()
  private ended = false
  private readonly session: Session
  private readonly step: HttpStep
  private readonly endpoint: string
  private readonly t0: number

  constructor(session: Session, step: HttpStep, endpoint: string, t0: number) {
    this.session = session
    this.step = step
    this.endpoint = endpoint
    this.t0 = t0
  }

  /**
   * Records the POST through `mcpExchange`, with an upstream that sends it and, once the server took it
   * (`202`), waits for its answers on the stream: the recorded response is the POST's status and
   * headers with those events, as an SSE answer, which is what a replay sends on its stream.
   */
  post(request: Request, messages: McpMessage[], upstream: McpUpstream): Promise<Response> {
    const sent: McpUpstream = async (req) => {
      const awaited = this.await(messages)
      let res: Response
      try {
        res = await upstream(req)
      } catch (error) {
        awaited?.done()
        throw error
      }
      // Only a `202` says the answer comes on the stream; any other answer is the POST's own.
      if (!awaited || res.status !== 202) {
        awaited?.done()
        return res
      }
      await res.body?.cancel()
      await awaited.finished
      const headers = keptHeaders(res)
      headers['content-type'] = 'text/event-stream'
      return new Response(awaited.events.map(formatSse).join(''), { status: res.status, headers })
    }
    return mcpExchange(this.session, request, messages, sent)
  }

  /** Registers a POST's requests before it is sent: an answer may come before its `202`. */
  private await(messages: McpMessage[]): Awaited | undefined {
    const ids = new Set<string | number>()
    const tokens = new Set<unknown>()
    for (const m of messages) {
      if (m.kind !== 'request') continue
      ids.add(m.id)
      const token = (m.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken
      if (token !== undefined) tokens.add(token)
    }
    if (ids.size === 0) return undefined
    let settle: () => void = () => {}
    const finished = new Promise<void>((resolve) => {
      settle = resolve
    })
    const awaited: Awaited = {
      ids,
      tokens,
      events: [],
      t0: performance.now(),
      finished,
      done: () => {
        this.awaited.delete(awaited)
        settle()
      },
    }
    if (this.ended) awaited.done()
    else this.awaited.add(awaited)
    this.session.track({ done: finished, flush: () => awaited.done() })
    return awaited
  }

  /** One event of the stream after `endpoint`: given to the POST it answers, else kept on the stream step. */
  event(event: SseChunk): void {
    if (this.session.isFinished) return
    const parsed = sseJson(event)
    const message =
      typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined
    const awaited = message && this.answered(message)
    if (!message || !awaited) {
      this.step.response?.chunks?.push(event)
      return
    }
    awaited.events.push({ ...event, atMs: Math.round(performance.now() - awaited.t0) })
    const id = message.id as string | number
    if (!('method' in message) && awaited.ids.delete(id) && awaited.ids.size === 0) awaited.done()
  }

  /** The POST a message of the server's belongs to. */
  private answered(message: Record<string, unknown>): Awaited | undefined {
    const waiting = [...this.awaited]
    if (!('method' in message)) return waiting.find((a) => a.ids.has(message.id as string | number))
    const params = message.params as { progressToken?: unknown } | undefined
    if (message.method === 'notifications/progress' && params?.progressToken !== undefined)
      return waiting.find((a) => a.tokens.has(params.progressToken))
    // A log line or a request of the server's while exactly one request waits: sent as part of it.
    return waiting.length === 1 ? waiting[0] : undefined
  }

  /** The stream ended: the POSTs still waiting are recorded with what came, and the endpoint is gone. */
  end(): void {
    if (this.ended) return
    this.ended = true
    if (!this.session.isFinished) this.step.timing.durationMs = Math.round(performance.now() - this.t0)
    for (const awaited of [...this.awaited]) awaited.done()
    const streams = STREAMS.get(this.session)
    if (streams?.get(this.endpoint) === this) streams.delete(this.endpoint)
  }
}

/** The first unused recorded stream with the GET's path, served as a stream that stays open. */
function replayedStream(session: Session, request: Request): Response | undefined {
  const path = new URL(request.url).pathname
  const step = session.findUnconsumed(
    (s) => s.type === 'http' && s.label === LEGACY_STREAM_LABEL && new URL(s.request.url).pathname === path,
  )
  const response = step?.type === 'http' ? step.response : undefined
  const endpoint = response?.chunks?.[0]
  if (!step || !response || endpoint?.event !== 'endpoint') return undefined
  session.consume(step.index)
  session.addStep({ ...step } as NewStep)
  const key = new URL(endpoint.data, request.url).href
  const stream = new ReplayingStream(session, () => {
    const streams = STREAMS.get(session)
    if (streams?.get(key) === stream) streams.delete(key)
  })
  streamsOf(session).set(key, stream)
  stream.send(endpoint)
  return withUrl(
    new Response(stream.body, { status: response.status, headers: response.headers }),
    request.url,
  )
}

const encoder = new TextEncoder()

/** A legacy stream replayed: the recorded answers of the POSTs are sent on it as they are served. */
class ReplayingStream implements LegacyStream {
  readonly body: ReadableStream<Uint8Array>
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined
  private closed = false
  private readonly session: Session

  constructor(session: Session, onClose: () => void) {
    this.session = session
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller
      },
      cancel: () => {
        this.closed = true
        onClose()
      },
    })
  }

  send(event: Pick<SseChunk, 'event' | 'id' | 'data'>): void {
    if (!this.closed) this.controller?.enqueue(encoder.encode(formatSse(event)))
  }

  /**
   * Answers the POST through `mcpExchange` (which matches it against the recording and readdresses the
   * answer) and moves the answer's events to the stream: the POST gets its status and headers only. A
   * JSON answer (a crash test's `isError` result) is sent as one `message` event. Nothing goes live: a
   * replayed stream has no server behind it.
   */
  async post(request: Request, messages: McpMessage[]): Promise<Response> {
    const response = await mcpExchange(this.session, request, messages, () =>
      Promise.reject(new TypeError('fetch failed: a replayed MCP HTTP+SSE stream has no server to send to')),
    )
    if (!response.ok || response.headers.has(REFUSAL_HEADER) || !response.body) return response
    const type = response.headers.get('content-type') ?? ''
    const text = await response.text()
    if (type.includes('text/event-stream')) for (const event of parseSse(text)) this.send(event)
    else if (type.includes('json') && text) this.send({ event: 'message', data: text })
    else return new Response(text, { status: response.status, headers: response.headers })
    const headers = new Headers(response.headers)
    headers.delete('content-type')
    return new Response(null, { status: response.status, headers })
  }
}
