import { currentSession } from './context.ts'
import { handleExchange } from './handle-exchange.ts'

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
  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const session = currentSession()
    if (!session || session.mode === 'passthrough') return original(input, init)
    // undici's own options (a proxy `dispatcher`) do not survive `new Request`: pass them on upstream.
    const dispatcher = (init as { dispatcher?: unknown } | undefined)?.dispatcher
    const extra = dispatcher === undefined ? undefined : ({ dispatcher } as RequestInit)
    const request = new Request(input, { ...init, ...(init?.body ? { duplex: 'half' } : {}) } as RequestInit)
    return handleExchange(session, request, (req) => original(req, extra))
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
