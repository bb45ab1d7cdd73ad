import { CrashlabError } from '../../errors.ts'
import { mswNode } from './msw-modules.ts'

/**
 * Why this exists: every `setupServer()` of msw 3 (3.0.5, checked) feeds from ONE shared network
 * source, `defaultNetworkOptions.sources[0]`. A second server's `listen()` removes the first server's
 * listener from it (the first server's handlers silently stop answering), and a second server's
 * `close()` tears the interception down for both. Two servers cannot coexist, so crashlab refuses the
 * second one loudly instead of losing requests quietly: the fix is to add `crashlabHandlers()` to the
 * user's own server.
 */

/** The slice of msw's network source this guard touches (its emitter is protected in msw's types). */
interface SharedSource {
  on: (type: 'frame', listener: FrameListener, options?: unknown) => void
  disable: () => unknown
  emitter: {
    on: (type: 'frame', listener: FrameListener) => unknown
    listeners: (type: 'frame') => FrameListener[]
    listenerCount: (type: 'frame') => number
  }
}
type FrameListener = (...args: never[]) => unknown

const CONFLICT_FIX =
  "msw 3 runs one server per process: a second `setupServer().listen()` silently disables the first. Run one server: either add crashlab's handlers to yours, `setupServer(...yourHandlers, ...crashlabHandlers())`, and do not start crashlab's own (the Vitest plugin's `interceptor: false`), or drop yours and let crashlab's interceptor run alone."

function sharedSource(): SharedSource | undefined {
  const source = mswNode().defaultNetworkOptions.sources[0] as unknown as Partial<SharedSource> | undefined
  // An msw whose internals moved: no guard, rather than a crash of every test.
  if (typeof source?.on !== 'function' || typeof source.emitter?.listeners !== 'function') return undefined
  return source as SharedSource
}

/**
 * Throws `E_INTERCEPTOR_CONFLICT` when another MSW server already listens in this process.
 *
 * @example
 * assertNoOtherServer() // before crashlab's own server.listen()
 */
export function assertNoOtherServer(): void {
  const source = sharedSource()
  if (!source || source.emitter.listenerCount('frame') === 0) return
  throw new CrashlabError(
    'E_INTERCEPTOR_CONFLICT',
    `startInterceptor() found another MSW server already listening in this process. ${CONFLICT_FIX}`,
  )
}

/**
 * Watches the shared source while crashlab's server listens: another server's `listen()` first clears
 * our listener, then adds its own; at that moment the guard puts ours back and throws from the other
 * `listen()`, so the user sees the conflict at the line that caused it. Returns the function that stops
 * watching (before crashlab's server closes).
 *
 * @example
 * server.listen({ onUnhandledFrame: 'bypass' })
 * const unguard = guardAgainstOtherServers()
 */
export function guardAgainstOtherServers(): () => void {
  const source = sharedSource()
  if (!source) return () => {}
  // A copy: rettime may hand out its live list, which the other server's enable() empties.
  const ours = [...source.emitter.listeners('frame')]
  const ownOn = Object.getOwnPropertyDescriptor(source, 'on')
  const ownDisable = Object.getOwnPropertyDescriptor(source, 'disable')
  const original = source.on
  source.on = function guardedOn(this: SharedSource, type, listener, options) {
    if (type === 'frame') {
      for (const l of ours) if (!this.emitter.listeners('frame').includes(l)) this.emitter.on('frame', l)
      throw new CrashlabError(
        'E_INTERCEPTOR_CONFLICT',
        `An MSW server started listening while crashlab's interceptor runs; crashlab kept its own and refused this one. ${CONFLICT_FIX}`,
      )
    }
    return original.call(this, type, listener, options)
  }
  // The refused server's `close()` would dispose the shared interceptors under crashlab's feet.
  source.disable = () => undefined
  return () => {
    restore(source, 'on', ownOn)
    restore(source, 'disable', ownDisable)
  }
}

function restore(source: SharedSource, key: 'on' | 'disable', own: PropertyDescriptor | undefined): void {
  if (own) Object.defineProperty(source, key, own)
  else delete (source as Partial<SharedSource>)[key]
}
