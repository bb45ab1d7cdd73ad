import { bypass, HttpHandler, http, passthrough, type RequestHandler } from 'msw'
import { currentSession } from '../engine/context.ts'
import { handleExchange } from '../engine/handle-exchange.ts'
import type { Session } from '../engine/session.ts'
import { CrashlabError } from '../errors.ts'
import { type HostMatcher, hostMatcher } from './internal/host-matcher.ts'
import { type ReplayRule, replayRule } from './replay-network.ts'
import type { InterceptorOptions } from './types.ts'

/**
 * crashlab's MSW handlers, for a project that runs its own MSW server: the model-hosts handler records
 * and replays calls to the intercepted hosts through the current Session, and the guard applies the
 * replay rule to other hosts (`replayRule`: a model call is refused on any host, any other request
 * passes to loopback or an `allowHosts` host and is refused elsewhere, with a network error). Put them
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
  return handler instanceof HttpHandler && CRASHLAB in handler
}

const CRASHLAB = Symbol.for('crashlab.handler')

function mark(handler: HttpHandler): HttpHandler {
  return Object.assign(handler, { [CRASHLAB]: true })
}

function modelHostsHandler(intercepted: HostMatcher, rule: ReplayRule): HttpHandler {
  return mark(
    http.all('*', async ({ request }) => {
      const url = new URL(request.url)
      // Not ours: fall through to the next handler (the user's, then the guard).
      if (!intercepted(url)) return undefined
      const session = currentSession()
      // Outside any Session: untouched, unless the replay rule covers such requests (replay mode).
      if (!session) return outsideSession(rule, request, url) ?? passthrough()
      if (session.mode === 'passthrough') return passthrough()
      try {
        return await handleExchange(session, request, upstream)
      } catch {
        // handleExchange rejects as fetch rejects: a network error for the caller. crashlab's own
        // errors (a divergence, a blocked call) are on the Session, which `finish()` throws; throwing
        // here instead would reach the agent as an HTTP 500 that SDKs retry and agents swallow.
        return Response.error()
      }
    }),
  )
}

/** The call upstream while recording: out through MSW untouched, the body read raw (no compression). */
function upstream(request: Request): Promise<Response> {
  return fetch(bypass(request))
}

function otherHostsGuard(
  intercepted: HostMatcher,
  otherHosts: InterceptorOptions['otherHosts'],
  rule: ReplayRule,
): HttpHandler {
  return mark(
    http.all('*', ({ request }) => {
      const url = new URL(request.url)
      if (intercepted(url)) return undefined
      const session = currentSession()
      if (!session) return outsideSession(rule, request, url)
      if (session.mode !== 'replay') {
        if ((otherHosts ?? 'passthrough') === 'passthrough') return undefined
        session.fail(unhandledHost(session, request, url))
        return Response.error()
      }
      // `otherHosts: 'error'`, set by hand: every other host is refused, loopback too.
      if (otherHosts === 'error') {
        rule.refuse(unhandledHost(session, request, url), { session }, requestText(request, url))
        return Response.error()
      }
      return judged(rule, { session }, request, url)
    }),
  )
}

/** A request made outside any Session: left alone (undefined) unless the replay rule covers it. */
function outsideSession(rule: ReplayRule, request: Request, url: URL): Response | undefined {
  const scope = rule.scope()
  if (!scope) return undefined
  return judged(rule, scope, request, url)
}

/** The replay rule's answer: undefined lets the request through (counted), else a network error. */
function judged(
  rule: ReplayRule,
  scope: { session?: Session },
  request: Request,
  url: URL,
): Response | undefined {
  const outbound = { url, method: request.method }
  const verdict = rule.judge(outbound)
  const counted = requestText(request, url)
  if (verdict.send) {
    rule.sent('requests', counted)
    return undefined
  }
  rule.refuse(rule.refusal(verdict, scope, outbound), scope, counted)
  return Response.error()
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
      `in ${session.mode === 'replay' ? 'a replay' : 'this run'} it was answered with a network error and ` +
      `never sent. Mock it in your own MSW handlers (placed before crashlab's), add \`${url.host}\` to the interceptor's \`hosts\` to ` +
      `record and replay it, or set \`otherHosts: 'passthrough'\` to let it reach the network.`,
    { subject: shown },
  )
}
