import { bypass, HttpHandler, http, passthrough, type RequestHandler } from 'msw'
import { currentSession } from '../engine/context.ts'
import { handleExchange } from '../engine/handle-exchange.ts'
import type { Session } from '../engine/session.ts'
import { CrashlabError } from '../errors.ts'
import { type HostMatcher, hostMatcher } from './internal/host-matcher.ts'
import type { InterceptorOptions } from './types.ts'

/**
 * crashlab's MSW handlers, for a project that runs its own MSW server: the model-hosts handler records
 * and replays calls to the intercepted hosts through the current Session, and the guard answers other
 * hosts with a network error during a replay (so that a replay never lets a request out). Put them
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
  return [modelHostsHandler(intercepted), otherHostsGuard(intercepted, options.otherHosts)]
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

function modelHostsHandler(intercepted: HostMatcher): HttpHandler {
  return mark(
    http.all('*', async ({ request }) => {
      // Not ours: fall through to the next handler (the user's, then the guard).
      if (!intercepted(new URL(request.url))) return undefined
      const session = currentSession()
      if (!session || session.mode === 'passthrough') return passthrough()
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
): HttpHandler {
  return mark(
    http.all('*', ({ request }) => {
      const url = new URL(request.url)
      if (intercepted(url)) return undefined
      const session = currentSession()
      if (!session) return undefined
      const policy = otherHosts ?? (session.mode === 'replay' ? 'error' : 'passthrough')
      if (policy === 'passthrough') return undefined
      session.fail(unhandledHost(session, request, url))
      return Response.error()
    }),
  )
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
