import { currentSession, outsideSession } from './context.ts'
import { handleExchange } from './handle-exchange.ts'
import { exchangeRequestOf } from './internal/plain-request.ts'

const WRAPPED = Symbol.for('crashlab.sessionFetch')

/**
 * A fetch made by `sessionFetch`, which knows the fetch it wraps.
 *
 * @example
 * const f: SessionFetch = sessionFetch(globalThis.fetch)
 */
export type SessionFetch = typeof fetch & { readonly [WRAPPED]: typeof fetch }

/**
 * A fetch that routes every call through the Session current at call time (record or replay), and
 * outside any Session, or in `passthrough`, simply calls `original`. The Session is looked up per call,
 * not when the fetch is made, so one client created at module load serves every test.
 *
 * @example
 * const openai = new OpenAI({ fetch: sessionFetch() })
 */
export function sessionFetch(original: typeof fetch = globalThis.fetch): SessionFetch {
  // Wrapping twice would record every call twice.
  if (isSessionFetch(original)) return original
  // Not an async function: it returns handleExchange's promise itself rather than a second one that
  // follows it (each promise also pays the AsyncLocalStorage hook). A synchronous throw (an invalid URL
  // or init, as `new Request` finds them) still reaches the caller as a rejection, as fetch's would.
  const wrapped = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    try {
      const session = currentSession()
      if (!session || session.mode === 'passthrough') return original(input, init)
      // undici's own options (a proxy `dispatcher`) do not survive `new Request`: pass them on upstream.
      const dispatcher = (init as { dispatcher?: unknown } | undefined)?.dispatcher
      const extra = dispatcher === undefined ? undefined : ({ dispatcher } as RequestInit)
      // A replay sends nothing, so its request need not follow the caller's signal (which costs), unless
      // it records from its first divergence on; and the usual SDK call gets a plain request, not an
      // undici Request (see `exchangeRequestOf`).
      const followSignal = session.mode !== 'replay' || session.onDivergence === 'record'
      const request = exchangeRequestOf(input, init, { followSignal })
      // The request itself going upstream (not a copy made from what was read) is the call as it was
      // made: sent with the caller's own arguments, since the request read may not carry the body itself.
      // Upstream outside the Session: the exchange is this one, and an interceptor on the same host must
      // not take the call for a new one and record it again.
      return handleExchange(session, request, (req) =>
        outsideSession(() => (req === request ? original(input, init) : original(req, extra))),
      )
    } catch (error) {
      return Promise.reject(error)
    }
  }
  return Object.assign(wrapped, { [WRAPPED]: original }) as SessionFetch
}

/**
 * True for a fetch made by `sessionFetch`.
 *
 * @example
 * isSessionFetch(wrap(new OpenAI()).fetch) // true
 */
export function isSessionFetch(fn: unknown): fn is SessionFetch {
  return typeof fn === 'function' && WRAPPED in fn
}
