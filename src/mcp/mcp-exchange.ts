import type { JsonValue } from '../case/schema/json.ts'
import type { Step, StepError, ToolStep, WireRequest, WireResponse } from '../case/schema/step.ts'
import { DivergenceError } from '../engine/divergence-error.ts'
import { diffRequests } from '../engine/index.ts'
import { refusalResponse } from '../engine/refusal-response.ts'
import type { NewStep, Session } from '../engine/session.ts'
import { recordResponse } from '../engine/streams/record-response.ts'
import { replayNetworkError, replayResponse } from '../engine/streams/replay-response.ts'
import { toJsonValue, toStepError } from '../engine/values.ts'
import { redactDocument } from '../redact/redact-document.ts'
import { forkBlocked, learnToolLists, toolSideEffects } from './internal/mcp-side-effects.ts'
import {
  isMcpStep,
  matchKey,
  matchShape,
  mcpWireOf,
  mcpWireRequest,
  readdressed,
  recordedKey,
  recordedMessages,
  rpcAnswer,
} from './internal/mcp-wire.ts'
import {
  isReplayedSession,
  liveSessionFor,
  openedLiveSession,
  rememberReplayedSession,
  withSessionId,
} from './internal/replayed-sessions.ts'
import type { McpMessage } from './mcp-message.ts'

/**
 * Sends a request to the MCP server while recording: MSW's `fetch(bypass(req))`.
 *
 * @example
 * const upstream: McpUpstream = (req) => fetch(bypass(req))
 */
export type McpUpstream = (request: Request) => Promise<Response>

/**
 * One MCP exchange over Streamable HTTP, recorded or replayed through the Session (the older HTTP+SSE
 * transport's POSTs too, through `legacyPost`, which moves their answers to and from its GET stream). `messages` are the request's MCP messages (`readMcpRequest`), or
 * undefined for a bodiless GET or DELETE of an MCP session (`isMcpStreamRequest`).
 *
 * - record: the request goes to the server; its answer reaches the caller unchanged (an SSE answer
 *   event by event) and becomes a step when it ends: `tools/call` a `tool` step (the tool's name and
 *   arguments, the MCP result, and `mcp` with the server, `isError` and the HTTP exchange), any other
 *   message an `http` step labelled `mcp:<method>`. A GET (the server's own stream) and a DELETE go to
 *   the server and are not recorded.
 * - replay: nothing is sent. The first unused recorded MCP step with the same methods and params (the
 *   JSON-RPC id, `_meta`, the session id and the URL play no part) answers, with its recorded status,
 *   headers (`Mcp-Session-Id`) and framing, readdressed to the live request's id. A request the
 *   recording does not hold is a divergence naming the method and the tool; a notification or a
 *   response to the server gets `202 Accepted`. A GET gets `405` (a server may offer no stream), a
 *   DELETE `200`. A crash test's MCP fault (`SessionOptions.inject`) at the `tools/call` step a request
 *   would take answers it once instead; the step stays unused, so a retry is served from the recording.
 *
 * @example
 * const messages = await readMcpRequest(request)
 * if (messages) return mcpExchange(session, request, messages, (req) => fetch(bypass(req)))
 */
export async function mcpExchange(
  session: Session,
  request: Request,
  messages: McpMessage[] | undefined,
  upstream: McpUpstream,
): Promise<Response> {
  if (session.halted) return refusalResponse(session.halted)
  if (!messages) {
    const id = request.headers.get('mcp-session-id')
    if (session.mode !== 'replay' && !isReplayedSession(id)) return upstream(request)
    // A session a replay handed out: to its live session if one was opened, else answered as a replay.
    const liveId = isReplayedSession(id)
      ? await openedLiveSession(id, request.url)?.catch(() => undefined)
      : undefined
    if (session.mode !== 'replay' && liveId !== undefined) {
      const headers = new Headers(request.headers)
      headers.set('mcp-session-id', liveId)
      return withSessionId(await upstream(new Request(request, { headers })), id as string)
    }
    return request.method === 'GET'
      ? new Response(null, { status: 405, headers: { allow: 'POST, DELETE' } })
      : new Response(null, { status: 200 })
  }
  session.forkIfDue()
  const text = await request.text()
  const wire = mcpWireRequest(request, text)
  const url = new URL(request.url)
  const startedAt = new Date().toISOString()
  const t0 = performance.now()
  const key = matchKey(session, messages)
  // A replay, and a fork past its fork step (where a call equal to a recorded one keeps its answer, as
  // `tool()` does), answer from the recording when it holds the call.
  if (session.mode === 'replay' || session.forkAt !== undefined) {
    const recorded = session.findUnconsumed((s) => isMcpStep(s) && recordedKey(session, s) === key)
    const fault = recorded && injected(session, recorded, { wire, messages, url, startedAt, t0 })
    if (fault) return fault
    if (recorded) return served(session, recorded, { messages, text }, url, request.url)
  }
  if (session.mode === 'replay') {
    if (!messages.some((m) => m.kind === 'request')) {
      // A notification, or an answer to the server's own request: accepted, as a server accepts it.
      const response: WireResponse = { status: 202, headers: {}, body: null }
      addMcpStep(session, { wire, messages, url, startedAt, t0 }, response, null)
      return new Response(null, { status: 202 })
    }
    const divergence = mcpDivergence(session, messages)
    if (!session.recordFrom(divergence)) {
      session.fail(divergence)
      return refusalResponse(divergence)
    }
  }

  const headers = new Headers(request.headers)
  headers.set('accept-encoding', 'identity')
  headers.delete('content-length')
  const exchange = { wire, messages, url, startedAt, t0 }
  // A fork past its fork step: a side-effect tool's call the parent run does not hold is never sent.
  const blocked = forkBlocked(
    session,
    mcpServerName(session, url),
    messages,
    request.headers.get('mcp-session-id'),
  )
  if (blocked) {
    addMcpStep(session, exchange, blocked.response, blocked.error, true)
    return blocked.answer
  }
  // A session a replay handed out (its handshake was replayed): the request goes on a live session
  // opened with the same `initialize`, and its answer names the replayed session again.
  const replayedId = request.headers.get('mcp-session-id')
  const liveId = isReplayedSession(replayedId)
    ? await liveSessionFor(replayedId, request.url, request.headers, upstream).catch(() => undefined)
    : undefined
  if (liveId !== undefined) headers.set('mcp-session-id', liveId)
  let res: Response
  try {
    res = await upstream(
      new Request(request.url, { method: 'POST', headers, body: text, signal: request.signal }),
    )
  } catch (error) {
    addMcpStep(session, exchange, null, toStepError(error))
    throw error
  }
  if (liveId !== undefined) res = withSessionId(res, replayedId as string)
  return recordResponse(session, res, t0, (response) => addMcpStep(session, exchange, response, null))
}

/** A recorded step's answer, served to the live request (the step joins the run as recorded). */
function served(
  session: Session,
  step: Step,
  request: { messages: McpMessage[]; text: string },
  url: URL,
  requestUrl: string,
): Response {
  const live = request.messages
  session.consume(step.index)
  session.addStep({ ...step } as NewStep)
  const wire = mcpWireOf(step)
  const response = wire?.response
  if (!response) throw replayNetworkError(step.error ?? { name: 'TypeError', message: 'fetch failed' })
  const recorded = recordedMessages(step) ?? []
  learnFromAnswer(session, url, recorded, response)
  const sessionId = response.headers['mcp-session-id']
  if (sessionId !== undefined) rememberReplayedSession(sessionId, live, request.text)
  return replayResponse(readdressed(response, recorded, live), {
    incomplete: false,
    timing: session.replayTiming,
    url: requestUrl,
  })
}

/**
 * A crash test's fault in place of recorded `tools/call` step `step`, when the Session's injection
 * targets it and is not used yet: an `isError` result (as JSON, under the live request's id and the
 * recorded MCP session id), or the error the client's `fetch` rejects with. The fault's exchange is a
 * step of the run; the recorded step stays unused.
 */
function injected(session: Session, step: Step, exchange: McpExchange): Response | undefined {
  if (step.type !== 'tool' || !session.inject?.mcp) return undefined
  const injection = session.takeInjection(step.index)
  if (!injection?.mcp) return undefined
  const fault = injection.mcp(step)
  if ('reject' in fault) {
    addMcpStep(session, exchange, null, toStepError(fault.reject))
    throw fault.reject
  }
  const request = exchange.messages.find((m) => m.kind === 'request')
  const body = { jsonrpc: '2.0', id: request?.kind === 'request' ? request.id : null, result: fault.result }
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const sessionId = step.mcp?.response?.headers['mcp-session-id']
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId
  addMcpStep(session, exchange, { status: 200, headers, body }, null)
  return new Response(JSON.stringify(body), { status: 200, headers })
}

/** An MCP exchange in flight: what the step is made of (over HTTP, or a stdio server's line: src/mcp/stdio-sessions.ts). */
export interface McpExchange {
  wire: WireRequest
  messages: McpMessage[]
  url: URL
  startedAt: string
  t0: number
}

/**
 * The step an MCP exchange becomes once its answer came (or its request failed): a `tools/call` a
 * `tool` step with `mcp`, anything else an `http` step labelled `mcp:<method>`.
 */
export function addMcpStep(
  session: Session,
  exchange: McpExchange,
  response: WireResponse | null,
  error: StepError | null,
  blocked = false,
): void {
  const { messages, url, wire } = exchange
  const timing = { startedAt: exchange.startedAt, durationMs: Math.round(performance.now() - exchange.t0) }
  const single = messages.length === 1 ? messages[0] : undefined
  const request = single?.kind === 'request' ? single : undefined
  const answer = request && response ? rpcAnswer(response, request.id) : undefined
  if (request?.method === 'initialize' && response) learnServer(session, url, messages, response)
  if (response) learnToolLists(session, mcpServerName(session, url), messages, response)
  const httpError =
    response && response.status >= 400
      ? { name: 'McpError', message: `HTTP ${response.status}`, status: response.status }
      : null
  if (request?.method !== 'tools/call') {
    session.addStep({
      type: 'http',
      label: labelOf(messages),
      timing,
      error: error ?? rpcError(answer) ?? httpError,
      request: wire,
      response,
    })
    return
  }
  const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown }
  const result = answer && 'result' in answer ? toJsonValue(answer.result) : undefined
  const isError = (result as { isError?: unknown } | undefined)?.isError === true
  const name = String(params.name ?? '')
  const server = mcpServerName(session, url)
  // From the config, else the server's annotations: a fork never runs a side-effect tool live.
  const { sideEffects, from } = toolSideEffects(session, server, name)
  const step: Omit<ToolStep, 'index'> = {
    type: 'tool',
    name,
    args: toJsonValue(params.arguments ?? {}),
    sideEffects,
    ...(blocked ? { blocked } : {}),
    timing,
    error: error ?? rpcError(answer) ?? (answer ? null : (httpError ?? noAnswer(response))),
    mcp: {
      server,
      method: 'tools/call',
      ...(isError ? { isError } : {}),
      sideEffectsFrom: from,
      request: wire,
      response,
    },
  }
  if (result !== undefined) step.result = result as JsonValue
  session.addStep(step)
}

function labelOf(messages: McpMessage[]): string {
  if (messages.length > 1) return 'mcp:batch'
  const m = messages[0]!
  return m.kind === 'response' ? 'mcp:response' : `mcp:${m.method}`
}

/** A JSON-RPC error answer as the step's error. */
function rpcError(answer: ReturnType<typeof rpcAnswer>): StepError | null {
  const e = answer?.error
  if (!e) return null
  return {
    name: 'McpError',
    message: typeof e.message === 'string' ? e.message : 'JSON-RPC error',
    ...(e.code === undefined ? {} : { code: String(e.code) }),
  }
}

function noAnswer(response: WireResponse | null): StepError | null {
  return response ? { name: 'McpError', message: 'the server sent no answer to the call' } : null
}

/** Server names per Session: the `initialize` answer's `serverInfo.name`, by endpoint. */
const SERVERS = new WeakMap<Session, Map<string, string>>()
/**
 * The same for the whole process, newest first: a client that connected outside the test's Session (in
 * `beforeAll`, through the per-file MCP Session) names its server in the tests' calls too.
 */
const ANY_SESSION_SERVERS = new Map<string, string>()

function endpointOf(url: URL): string {
  return `${url.origin}${url.pathname}`
}

/**
 * What a served answer teaches the Session: the server's name (from `initialize`) and its tools'
 * annotations (from `tools/list`), for the steps that follow.
 */
export function learnFromAnswer(
  session: Session,
  url: URL,
  messages: readonly McpMessage[],
  response: WireResponse,
): void {
  learnServer(session, url, messages, response)
  learnToolLists(session, mcpServerName(session, url), messages, response)
}

function learnServer(
  session: Session,
  url: URL,
  messages: readonly McpMessage[],
  response: WireResponse,
): void {
  const init = messages.find((m) => m.kind === 'request' && m.method === 'initialize')
  if (init?.kind !== 'request') return
  const result = rpcAnswer(response, init.id)?.result as { serverInfo?: { name?: unknown } } | undefined
  const name = result?.serverInfo?.name
  if (typeof name !== 'string') return
  let servers = SERVERS.get(session)
  if (!servers) {
    servers = new Map()
    SERVERS.set(session, servers)
  }
  servers.set(endpointOf(url), name)
  ANY_SESSION_SERVERS.set(endpointOf(url), name)
}

/**
 * The server a call went to: its name when its `initialize` was seen (in this Session, else in any), else
 * the URL's host (a stdio server's command line).
 */
export function mcpServerName(session: Session, url: URL): string {
  const endpoint = endpointOf(url)
  return (
    SERVERS.get(session)?.get(endpoint) ?? ANY_SESSION_SERVERS.get(endpoint) ?? (url.host || url.pathname)
  )
}

/**
 * The divergence for an MCP request the recording does not hold, diffed against the nearest recorded
 * MCP call (of the server at `server.url`, when given): an unused one with the same method (and tool)
 * first, then any unused one, then any.
 */
export function mcpDivergence(
  session: Session,
  live: McpMessage[],
  server: { url?: string } = {},
): DivergenceError {
  const request = live.find((m) => m.kind === 'request')
  const tool =
    request?.method === 'tools/call' ? (request.params as { name?: unknown } | undefined)?.name : undefined
  const call =
    typeof tool === 'string' ? `MCP tools/call of tool "${tool}"` : `MCP ${request?.method ?? 'batch'}`
  const steps = (session.recorded?.steps ?? []).filter(
    (s) => isMcpStep(s) && (server.url === undefined || mcpWireOf(s)?.request.url === server.url),
  )
  const unused = new Set(session.unconsumed().map((s) => s.index))
  const sameCall = (s: Step) => {
    const first = recordedMessages(s)?.find((m) => m.kind === 'request')
    if (first?.kind !== 'request' || first.method !== request?.method) return false
    return tool === undefined || (s.type === 'tool' && s.name === tool)
  }
  const pools = [
    steps.filter((s) => unused.has(s.index) && sameCall(s)),
    steps.filter((s) => unused.has(s.index) && recordedMessages(s)?.some((m) => m.kind === 'request')),
    steps.filter(sameCall),
  ]
  const pool = pools.find((p) => p.length > 0) ?? []
  // Both sides redacted, as the cassette holds the recorded one: the message never shows a secret.
  const redacted = (messages: readonly McpMessage[]) =>
    redactDocument(matchShape(messages), { redactor: session.redactor }).value
  const shown = redacted(live)
  let nearest: { step: Step; differences: ReturnType<typeof diffRequests> } | undefined
  for (const step of pool) {
    const differences = diffRequests(redacted(recordedMessages(step) ?? []), shown)
    if (!nearest || differences.length < nearest.differences.length) nearest = { step, differences }
  }
  return new DivergenceError({
    where: session.where,
    stepIndex: session.run.steps.length,
    call,
    nearestStep: nearest?.step.index ?? null,
    nearestUsed: nearest ? !unused.has(nearest.step.index) : false,
    differences: nearest?.differences ?? [],
    cassettePath: session.cassettePath,
  })
}
