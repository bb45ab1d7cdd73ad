import { canonicalStringify } from '../case/canonical-json.ts'
import type { JsonValue } from '../case/schema/json.ts'
import type { Step, StepError, WireRequest, WireResponse } from '../case/schema/step.ts'
import type { NewStep, Session } from '../engine/session.ts'
import { toJsonValue } from '../engine/values.ts'
import { CrashlabError } from '../errors.ts'
import { forkBlocked } from './internal/mcp-side-effects.ts'
import {
  isMcpStep,
  matchKey,
  mcpWireOf,
  readdressed,
  recordedKey,
  recordedMessages,
} from './internal/mcp-wire.ts'
import { addMcpStep, learnFromAnswer, mcpDivergence, mcpServerName } from './mcp-exchange.ts'
import { type McpMessage, readMcpMessages } from './mcp-message.ts'
import { commandLine, stdioUrl } from './stdio/command-line.ts'
import {
  isJsonRpcRequest,
  isJsonRpcResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from './stdio/json-rpc.ts'
import { type ListedTool, listToolsLive } from './stdio/list-tools-live.ts'
import { serverSourceDigest } from './stdio/server-source.ts'
import type { StdioMessageEvent, StdioServer } from './stdio/types.ts'

/**
 * The recording and replaying side of `tapStdioIntoSessions` (src/mcp/stdio-sessions.ts), loaded once a
 * test file starts a process: turning a live server's messages into steps, and answering a replayed
 * server's requests from the recording. A test file that starts no process does not load it (nor the
 * MCP exchange it shares with HTTP).
 */

/** A request written to a live server, waiting for its answer. */
export interface Pending {
  session: Session
  request: JsonRpcRequest
  url: string
  startedAt: string
  t0: number
  /** What the server sent before the answer that belongs to this request. */
  before: JsonRpcMessage[]
}

/** The progress token of a request (`params._meta.progressToken`) or of a progress notification. */
function progressTokenOf(message: JsonRpcMessage): unknown {
  const params = (message as { params?: { progressToken?: unknown; _meta?: { progressToken?: unknown } } })
    .params
  return (message as { method?: string }).method === 'notifications/progress'
    ? params?.progressToken
    : params?._meta?.progressToken
}

/**
 * One message of a live server, seen while recording: a request starts a pending exchange in `session`
 * (the Session current when it was written, `at` its time), its answer ends it as a step.
 */
export function recordMessage(
  pending: Map<string, Pending>,
  event: StdioMessageEvent,
  session: Session | undefined,
  at: { startedAt: string; t0: number },
): void {
  const { message, spawnId } = event
  if (event.direction === 'to-server') {
    if (!isJsonRpcRequest(message)) return
    if (session?.mode !== 'record' || session.isFinished) return
    pending.set(`${spawnId}:${String(message.id)}`, {
      session,
      request: message,
      url: stdioUrl(event.server),
      startedAt: at.startedAt,
      t0: at.t0,
      before: [],
    })
    return
  }
  if (!isJsonRpcResponse(message)) {
    // The server's own request (sampling, elicitation, roots) or notification (progress, a log line)
    // while a request waits: kept with that request's answer, so a replay sends it again, in order.
    const waiting = [...pending.entries()].filter(([k]) => k.startsWith(`${spawnId}:`)).map(([, p]) => p)
    const token = progressTokenOf(message)
    const owner =
      (token !== undefined && waiting.find((p) => progressTokenOf(p.request) === token)) ||
      (waiting.length === 1 ? waiting[0] : undefined)
    owner?.before.push(message)
    return
  }
  if (message.id === null) return
  const key = `${spawnId}:${String(message.id)}`
  const asked = pending.get(key)
  if (!asked) return
  pending.delete(key)
  if (asked.session.isFinished) return
  const messages = toMcp(asked.request)
  if (!messages) return
  const body = (asked.before.length > 0 ? [...asked.before, message] : message) as unknown as JsonValue
  const response: WireResponse = { status: 200, headers: {}, body }
  addMcpStep(
    asked.session,
    {
      wire: wireRequest(asked.url, asked.request, sourceOf(event.server)),
      messages,
      url: new URL(asked.url),
      startedAt: asked.startedAt,
      t0: asked.t0,
    },
    response,
    null,
  )
}

/**
 * A replayed server's answer to `request`, from the recording of `current` (the Session of the code that
 * wrote it) or `outside` (the file's MCP Session): undefined when neither holds it.
 */
export function answer(
  server: StdioServer,
  request: JsonRpcRequest,
  current: Session | undefined,
  outside: Session | undefined,
): JsonRpcMessage[] | undefined | Promise<JsonRpcMessage[] | undefined> {
  const live = toMcp(request)
  if (!live) return undefined
  const url = stdioUrl(server)
  current?.forkIfDue()
  for (const session of [current, outside]) {
    if (!session || session.isFinished) continue
    const key = matchKey(session, live)
    const step = session.findUnconsumed(
      (s) => isMcpStep(s) && mcpWireOf(s)?.request.url === url && recordedKey(session, s) === key,
    )
    if (!step) continue
    const fault = injected(session, step, request, url)
    if (fault) return fault
    const answered = served(session, step, live, url)
    // A tool list recorded from other code than the server's now: the model would be shown tools that
    // may no longer exist. The live server's list is compared first (no tool runs).
    if (request.method === 'tools/list' && changedSince(step, server))
      return checkToolSet(session, step, server).then(() => answered)
    return answered
  }
  return current ? forkBlockedAnswer(current, request, url) : undefined
}

/**
 * In a fork past its fork step, a side-effect tool's call the parent run does not hold: blocked as over
 * HTTP (a `blocked` step, an `isError` result naming `E_FORK_BLOCKED`). Any other call the recording
 * does not hold is a miss: the fork's stdio server is the replayed one, which cannot go live.
 */
function forkBlockedAnswer(
  session: Session,
  request: JsonRpcRequest,
  url: string,
): JsonRpcMessage[] | undefined {
  const messages = toMcp(request)
  if (!messages) return undefined
  const blocked = forkBlocked(session, mcpServerName(session, new URL(url)), messages, null)
  if (!blocked) return undefined
  const response = { ...blocked.response, headers: {} }
  addAnsweredStep(session, url, request, response, blocked.error, true)
  return [response.body as unknown as JsonRpcMessage]
}

/** The recorded source digest of a server's step, when the recording has one. */
const SOURCE_HEADER = 'mcp-server-source'
const SOURCES = new WeakMap<StdioServer, string | null>()

/** A spawned server's source digest, read once per spawn. */
function sourceOf(server: StdioServer): string | undefined {
  let digest = SOURCES.get(server)
  if (digest === undefined) {
    digest = serverSourceDigest(server) ?? null
    SOURCES.set(server, digest)
  }
  return digest ?? undefined
}

function changedSince(step: Step, server: StdioServer): boolean {
  const recorded = mcpWireOf(step)?.request.headers[SOURCE_HEADER]
  const now = sourceOf(server)
  return recorded !== undefined && now !== undefined && recorded !== now
}

/** Live tool lists of changed servers, by command line and source: listed once per process. */
const LISTED = new Map<string, Promise<ListedTool[]>>()

/**
 * Lists the changed server's tools live and fails the Session, naming the tools, when they differ from
 * the recorded list the replay answers with.
 */
async function checkToolSet(session: Session, step: Step, server: StdioServer): Promise<void> {
  const key = `${stdioUrl(server)}\0${sourceOf(server)}`
  let listed = LISTED.get(key)
  if (!listed) {
    listed = listToolsLive(server)
    LISTED.set(key, listed)
  }
  const command = commandLine(server)
  const rerecord = 'Re-record the run (npx crashlab vitest --record) so that it uses the server as it is now.'
  let live: ListedTool[]
  try {
    live = await listed
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    session.fail(
      new CrashlabError(
        'E_DIVERGENCE',
        `replay of ${session.where}: MCP server \`${command}\` changed since the recording (its source files ` +
          `differ), and ${why} ${rerecord}`,
        { subject: session.cassettePath },
      ),
    )
    return
  }
  const recorded = recordedTools(step)
  const changes = toolSetChanges(recorded, live)
  if (changes.length === 0) return
  session.fail(
    new CrashlabError(
      'E_DIVERGENCE',
      `replay of ${session.where}: the tools of MCP server \`${command}\` changed since the recording (its ` +
        `source files differ, and its tools/list answers otherwise now): ${changes.join('; ')}. The replay ` +
        `answered with the recorded list, so the model was shown tools the server no longer has. ${rerecord}`,
      { subject: session.cassettePath },
    ),
  )
}

function recordedTools(step: Step): ListedTool[] {
  const body = mcpWireOf(step)?.response?.body as { result?: { tools?: ListedTool[] } } | null | undefined
  return body?.result?.tools ?? []
}

/**
 * What differs between two tool lists, for people: tools removed and added (a rename is both), and
 * for a tool in both, a changed description or input schema (what the model is shown).
 *
 * @example
 * toolSetChanges([{ name: 'issue_refund' }], [{ name: 'refund_order' }])
 * // ['tool "issue_refund" was removed', 'tool "refund_order" was added']
 */
export function toolSetChanges(recorded: readonly ListedTool[], live: readonly ListedTool[]): string[] {
  const now = new Map(live.map((t) => [t.name, t]))
  const before = new Map(recorded.map((t) => [t.name, t]))
  const changes: string[] = []
  for (const tool of recorded) if (!now.has(tool.name)) changes.push(`tool "${tool.name}" was removed`)
  for (const tool of live) if (!before.has(tool.name)) changes.push(`tool "${tool.name}" was added`)
  for (const tool of recorded) {
    const current = now.get(tool.name)
    if (!current) continue
    if ((current.description ?? '') !== (tool.description ?? ''))
      changes.push(`the description of tool "${tool.name}" changed`)
    if (
      canonicalStringify(toJsonValue(current.inputSchema ?? null)) !==
      canonicalStringify(toJsonValue(tool.inputSchema ?? null))
    )
      changes.push(`the input schema of tool "${tool.name}" changed`)
  }
  return changes
}

/**
 * A crash test's MCP fault in place of recorded `tools/call` step `step`, when the Session's injection
 * targets it and is not used yet (as over HTTP: src/mcp/mcp-exchange.ts). Over stdio there is no
 * `fetch` to reject: an `isError` result is answered as it is, and a failed transport as the JSON-RPC
 * error the MCP clients raise for it themselves: `-32001` for a timeout, `-32000` (connection closed)
 * for a reset. The fault's exchange is a step of the run; the recorded step stays unused.
 */
function injected(
  session: Session,
  step: Step,
  request: JsonRpcRequest,
  url: string,
): JsonRpcMessage[] | undefined {
  if (step.type !== 'tool' || !session.inject?.mcp) return undefined
  const injection = session.takeInjection(step.index)
  if (!injection?.mcp) return undefined
  const fault = injection.mcp(step)
  const answer: JsonRpcMessage =
    'reject' in fault
      ? {
          jsonrpc: '2.0',
          id: request.id,
          error:
            fault.reject.name === 'TimeoutError'
              ? { code: -32001, message: `Request timed out ${INJECTED}` }
              : { code: -32000, message: `Connection closed ${INJECTED}` },
        }
      : { jsonrpc: '2.0', id: request.id, result: fault.result }
  addAnsweredStep(
    session,
    url,
    request,
    { status: 200, headers: {}, body: answer as unknown as JsonValue },
    null,
  )
  return [answer]
}

/** The step of a request crashlab answered itself (a fault, a blocked call): no time passed. */
function addAnsweredStep(
  session: Session,
  url: string,
  request: JsonRpcRequest,
  response: WireResponse,
  error: StepError | null,
  blocked = false,
): void {
  const exchange = {
    wire: wireRequest(url, request, undefined),
    messages: toMcp(request) ?? [],
    url: new URL(url),
    startedAt: new Date().toISOString(),
    t0: performance.now(),
  }
  addMcpStep(session, exchange, response, error, blocked)
}

const INJECTED = '(fault injected by a crashlab crash test)'

/** A recorded step's answer for the live request; the step joins the run as recorded. */
function served(session: Session, step: Step, live: McpMessage[], url: string): JsonRpcMessage[] | undefined {
  const response = mcpWireOf(step)?.response
  if (!response) return undefined
  session.consume(step.index)
  session.addStep({ ...step } as NewStep)
  const recorded = recordedMessages(step) ?? []
  learnFromAnswer(session, new URL(url), recorded, response)
  const body = readdressed(response, recorded, live).body
  return (Array.isArray(body) ? body : [body]) as unknown as JsonRpcMessage[]
}

export function toMcp(request: JsonRpcRequest): McpMessage[] | undefined {
  return readMcpMessages(request)
}

/** The request of a stdio step: the JSON-RPC request, and the digest of the server's source, if local. */
function wireRequest(url: string, request: JsonRpcRequest, source: string | undefined): WireRequest {
  const headers: Record<string, string> = source === undefined ? {} : { [SOURCE_HEADER]: source }
  return { method: 'POST', url, headers, body: request as unknown as JsonValue }
}

/** The divergence of a request a replayed server's recording does not hold. */
export function missed(session: Session, server: StdioServer, request: JsonRpcRequest): void {
  const live = toMcp(request)
  if (live) session.fail(mcpDivergence(session, live, { url: stdioUrl(server) }))
}
