import { AsyncLocalStorage } from 'node:async_hooks'
import type { Session } from './session.ts'

/**
 * The Session of the agent run in progress follows the agent's code through promises, timers, event
 * emitters and streams by AsyncLocalStorage, so no client, tool or framework has to be handed it.
 * One store for the process: an MSW handler, a wrapped client and `tool()` all read the same one, also
 * when two copies of crashlab are loaded (the CLI's own, and the one Vite's module runner loads for the
 * entry point `crashlab replay` runs; a test file's, and a bundled dependency's): the store is kept on
 * `globalThis`, as the oracle registry is.
 */
const STORE_KEY = Symbol.for('crashlab.session-store')
const shared = globalThis as { [STORE_KEY]?: AsyncLocalStorage<Session> }
shared[STORE_KEY] ??= new AsyncLocalStorage<Session>()
const storage: AsyncLocalStorage<Session> = shared[STORE_KEY]

/**
 * Runs `fn` with `session` as the current Session; everything `fn` starts (awaits, timers, emitter
 * callbacks, stream reads) sees it through `currentSession()`.
 *
 * @example
 * const session = new Session({ mode: 'record', name: 'refund-bot' })
 * const answer = await runInSession(session, () => refundBot('Refund A17'))
 */
export function runInSession<T>(session: Session, fn: () => T): T {
  return storage.run(session, fn)
}

/**
 * The Session of the code calling it, or undefined outside any run (then crashlab stays out of the way).
 *
 * @example
 * currentSession()?.mode // 'replay' inside a replayed test, undefined in production code
 */
/**
 * Runs `fn` outside any Session: what it starts sees none. `sessionFetch` sends its upstream calls so,
 * since the exchange is already being recorded or replayed: an MSW interceptor on the same host would
 * otherwise take the call for a new one and record it a second time.
 *
 * @example
 * outsideSession(() => fetch(url)) // not recorded, whatever intercepts it
 */
export function outsideSession<T>(fn: () => T): T {
  return storage.exit(fn)
}

export function currentSession(): Session | undefined {
  return storage.getStore()
}

/**
 * Binds `fn` to the Session current now, for callback libraries that run callbacks from a pool or a
 * queue created outside the run (connection pools, some event buses) and so lose the context.
 *
 * @example
 * queue.on('job', bind((job) => tools.lookup(job.id)))
 */
export function bind<F extends (...args: never[]) => unknown>(fn: F): F {
  const session = storage.getStore()
  // Only the Session is carried, not the whole async context: that is all crashlab needs, and it keeps
  // the callback's other stores (a logger's, a tracer's) as its caller set them.
  if (!session) return fn
  return function (this: unknown, ...args: Parameters<F>) {
    return storage.run(session, () => fn.apply(this, args))
  } as unknown as F
}
