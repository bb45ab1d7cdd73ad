import type { HttpHandler, RequestHandler } from 'msw'
import { currentSession } from '../engine/context.ts'
import { handleExchange } from '../engine/handle-exchange.ts'
import { REFUSAL_HEADER, refusalResponse } from '../engine/refusal-response.ts'
import type { Session } from '../engine/session.ts'
import { CrashlabError } from '../errors.ts'
import {
  isMcpStreamRequest,
  type McpMessage,
  mayOpenLegacyMcpStream,
  readMcpRequest,
} from '../mcp/mcp-message.ts'
import { mcpOutsideSession } from '../mcp/outside-tests.ts'
import { findAdapter } from '../providers/registry.ts'
import { type HostMatcher, hostMatcher } from './host-matcher.ts'
import { hostEntry } from './internal/host-entry.ts'
import { readModelShaped } from './internal/model-shaped.ts'
import { msw } from './internal/msw-modules.ts'
import { rejectionResponse } from './internal/rejection.ts'
import { networkLedger } from './network-ledger.ts'
import { type ReplayRule, replayRule } from './replay-network.ts'
import type { InterceptorOptions } from './types.ts'

/**
 * crashlab's MSW handlers, for a project that runs its own MSW server: the model-hosts handler records
 * and replays, through the current Session, every call to the intercepted hosts, every model call on
 * any other host (recognised by its method, path and body: `readModelShaped`) and every MCP request
 * (by its JSON-RPC body: docs/mcp.md), and the guard applies
 * the replay rule to the rest (`replayRule`: a model call outside the cassette is refused on any host,
 * any other request passes to loopback or an `allowHosts` host and is refused elsewhere). Put them
 * after your own handlers: MSW tries handlers in order, so your mocks answer first and the guard only
 * sees what would have reached the network.
 *
 * @example
 * const server = setupServer(
 *   http.get('https://api.example.com/users', () => HttpResponse.json([{ id: 1 }])),
 *   ...crashlabHandlers({ hosts: ['api.openai.com'] }),
 * )
 * server.listen()
 */
export function crashlabHandlers(options: InterceptorOptions = {}): RequestHandler[] {
  const intercepted = hostMatcher(options.hosts)
  const rule = replayRule(options)
  return [modelHostsHandler(intercepted, rule), otherHostsGuard(intercepted, options.otherHosts, rule)]
}

/**
 * True for the handlers `crashlabHandlers()` makes, to tell them from a user's own (for instance to
 * check that a server's list holds them, and holds them last).
 *
 * @example
 * const list = server.listHandlers()
 * const ok = list.length >= 2 && list.slice(-2).every(isCrashlabHandler)
 */
export function isCrashlabHandler(handler: unknown): boolean {
  return handler instanceof msw().HttpHandler && CRASHLAB in handler
}

const CRASHLAB = Symbol.for('crashlab.handler')

function mark(handler: HttpHandler): HttpHandler {
  return Object.assign(handler, { [CRASHLAB]: true })
}

function modelHostsHandler(intercepted: HostMatcher, rule: ReplayRule): HttpHandler {
  return mark(
    msw().http.all('*', async ({ request }) => {
      const url = new URL(request.url)
      const session = currentSession()
      // Outside any Session: untouched, unless the replay rule covers such requests (replay mode), or the
      // request is MCP and the plugin opened the test file's MCP Session (a client connected in
      // `beforeAll`: src/mcp/outside-tests.ts).
      if (!session) {
        const outside = mcpOutsideSession()
        if (outside && outside.mode !== 'passthrough' && !(intercepted(url) && isModelApiCall(request))) {
          const mcp = await mcpOf(request)
          if (mcp) return mcpAnswer(outside, request, url, mcp)
        }
        if (!intercepted(url)) return undefined
        return (await outsideSession(rule, request, url)) ?? msw().passthrough()
      }
      if (session.mode === 'passthrough') return intercepted(url) ? msw().passthrough() : undefined
      return modelCallAnswer(intercepted, session, request, url)
    }),
  )
}

/**
 * The answer to a request made inside a recording or replaying Session: the exchange through the
 * Session for a call to an intercepted host, a model call on any other host (recognised by its
 * method, path and body: `readModelShaped`) or an MCP request on any host (recognised by its JSON-RPC
 * body: `readMcpRequest`, docs/mcp.md), undefined for anything else (the next handler's, then the
 * guard's). What fails rejects as fetch rejects: `Response.error()`.
 *
 * @example
 * const response = await modelCallAnswer(intercepted, session, request, new URL(request.url))
 */
export async function modelCallAnswer(
  intercepted: HostMatcher,
  session: Session,
  request: Request,
  url: URL,
): Promise<Response | undefined> {
  // An MCP request, on any host, recognised by its JSON-RPC body (or, bodiless, by its MCP headers).
  // A model API's path on a listed host is a model call: its body is not read for this.
  const isModelApi = intercepted(url) && isModelApiCall(request)
  const mcp = isModelApi ? undefined : await mcpOf(request)
  if (mcp) return mcpAnswer(session, request, url, mcp)
  // The stream of MCP's older HTTP+SSE transport: a GET for events, MCP's if its first event is `endpoint`.
  if (!intercepted(url) && mayOpenLegacyMcpStream(request.method, request.headers)) {
    const stream = await legacyStreamAnswer(session, request)
    if (stream) return stream
  }
  // A model call on a host nobody listed (a local model server, a gateway, a test's server on a port
  // picked at start) is recorded and replayed like a listed host's, by its wire shape. Anything else
  // falls through to the next handler (the user's, then the guard).
  if (!intercepted(url) && !(await readModelShaped(request))) return undefined
  try {
    // crashlab's own refusals (a divergence, a halted run) come back as a refusal response that no
    // SDK retries; the Session keeps the error, which `finish()` throws.
    const response = await handleExchange(session, request, upstream)
    // What a replay kept in is counted with what the replay rule refused (`crashlab replay` says so).
    if (session.mode === 'replay' && response.headers.has(REFUSAL_HEADER))
      networkLedger().refused.push(requestText(request, url))
    return response
  } catch (error) {
    // What is left rejects as fetch rejects (a recorded network error, a blocked call, the upstream
    // connection, a crash test's timeout): a network error for the caller, which the replay fast path
    // delivers as the error itself. Throwing here instead would reach the agent as an HTTP 500 that
    // SDKs retry and agents swallow.
    return rejectionResponse(error)
  }
}

function isModelApiCall(request: Request): boolean {
  return findAdapter({ method: request.method, url: request.url }) !== undefined
}

/** A request's MCP messages, `'stream'` for an MCP session's GET or DELETE, or undefined: not MCP. */
async function mcpOf(request: Request): Promise<McpMessage[] | 'stream' | undefined> {
  if (isMcpStreamRequest(request.method, request.headers)) return 'stream'
  return readMcpRequest(request)
}

/**
 * An MCP exchange through the Session (src/mcp, loaded on the first MCP request): answered like a model
 * call, a refusal counted in the ledger and a failure rejected as fetch rejects.
 */
async function mcpAnswer(
  session: Session,
  request: Request,
  url: URL,
  mcp: McpMessage[] | 'stream',
): Promise<Response> {
  try {
    const { mcpExchange, legacyPost } = await import('../mcp/on-demand.ts')
    const messages = mcp === 'stream' ? undefined : mcp
    // A POST to the endpoint a legacy stream named: answered on that stream.
    const response = await ((messages && legacyPost(session, request, messages, upstream)) ??
      mcpExchange(session, request, messages, upstream))
    if (session.mode === 'replay' && response.headers.has(REFUSAL_HEADER))
      networkLedger().refused.push(requestText(request, url))
    return response
  } catch (error) {
    return rejectionResponse(error)
  }
}

/**
 * A GET that may open MCP's older HTTP+SSE stream, through the Session (src/mcp, loaded then): the
 * recorded or replayed stream, or undefined when it is not one (the next handler's, then the guard's).
 */
async function legacyStreamAnswer(session: Session, request: Request): Promise<Response | undefined> {
  try {
    const { legacyStream } = await import('../mcp/on-demand.ts')
    return await legacyStream(session, request, upstream)
  } catch (error) {
    return rejectionResponse(error)
  }
}

/** The call upstream while recording: out through MSW untouched, the body read raw (no compression). */
function upstream(request: Request): Promise<Response> {
  return fetch(msw().bypass(request))
}

function otherHostsGuard(
  intercepted: HostMatcher,
  otherHosts: InterceptorOptions['otherHosts'],
  rule: ReplayRule,
): HttpHandler {
  return mark(
    msw().http.all('*', ({ request }) => {
      const url = new URL(request.url)
      if (intercepted(url)) return undefined
      const session = currentSession()
      if (!session) return outsideSession(rule, request, url)
      if (session.mode !== 'replay') {
        if ((otherHosts ?? 'passthrough') === 'passthrough') return undefined
        const error = unhandledHost(session, request, url)
        session.fail(error)
        return refusalResponse(error)
      }
      // `otherHosts: 'error'`, set by hand: every other host is refused, loopback too.
      if (otherHosts === 'error') {
        const error = unhandledHost(session, request, url)
        rule.refuse(error, { session }, requestText(request, url))
        return refusalResponse(error)
      }
      return judged(rule, { session }, request, url)
    }),
  )
}

/** A request made outside any Session: left alone (undefined) unless the replay rule covers it. */
async function outsideSession(rule: ReplayRule, request: Request, url: URL): Promise<Response | undefined> {
  const scope = rule.scope()
  if (!scope) return undefined
  return judged(rule, scope, request, url)
}

/**
 * The replay rule's answer: undefined lets the request through (counted). A refusal inside a Session
 * fails it, and the caller gets a refusal response that no SDK retries (the run is over; retrying with
 * backoff would only turn the failure into a test timeout); outside any Session there is no run to
 * end, and the caller (a trace exporter, a timer) gets a network error.
 */
async function judged(
  rule: ReplayRule,
  scope: { session?: Session },
  request: Request,
  url: URL,
): Promise<Response | undefined> {
  const outbound = { url, method: request.method }
  const verdict = await rule.judgeRequest(request, url)
  const counted = requestText(request, url)
  if (verdict.send) {
    rule.sent('requests', counted)
    return undefined
  }
  const error = rule.refusal(verdict, scope, outbound)
  rule.refuse(error, scope, counted)
  return scope.session ? refusalResponse(error) : Response.error()
}

/** The request as the ledger counts it: no query string, which may hold a key. */
function requestText(request: Request, url: URL): string {
  return `${request.method} ${url.origin}${url.pathname}`
}

function unhandledHost(session: Session, request: Request, url: URL): CrashlabError {
  const shown = `${url.origin}${url.pathname}`
  return new CrashlabError(
    'E_UNHANDLED_HOST',
    `${session.where} (${session.mode}) sent ${request.method} ${shown}, a host crashlab does not record; ` +
      `in ${session.mode === 'replay' ? 'a replay' : 'this run'} it was refused and never sent. Mock it in ` +
      `your own MSW handlers (placed before crashlab's), add \`${hostEntry(url)}\` to the interceptor's \`hosts\` to ` +
      `record and replay it, or set \`otherHosts: 'passthrough'\` to let it reach the network.`,
    { subject: shown },
  )
}
