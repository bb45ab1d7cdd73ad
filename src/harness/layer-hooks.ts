import { composeHooks } from '../checks/runtime/compose-hooks.ts'
import type { SessionHooks } from '../engine/types.ts'

type HookName = keyof SessionHooks

const NAMES: readonly HookName[] = ['onRequest', 'onResponse', 'onStep']

/**
 * Layers hook sets in order, hook by hook (one set alone is returned as it is): a hook that only one set has is used as it is, and the hooks
 * that several sets have are joined by `composeHooks`, in the order given. Used as is, an `onRequest`
 * keeps its whole decision (a fork's `{ rewrite, baseUrl }` sends the call to `baseUrl`), where the
 * joined one passes a rewrite on to the next hook.
 *
 * @example
 * const hooks = layerHooks(journal.hooks, userHooks, checks.hooks) // journal's onStep first, checks' last
 */
export function layerHooks(...sets: ReadonlyArray<SessionHooks | undefined>): SessionHooks {
  const given = sets.filter((h): h is SessionHooks => h !== undefined)
  // One set is used as it is: its methods keep their `this`.
  if (given.length === 1) return given[0] as SessionHooks
  const out: SessionHooks = {}
  for (const name of NAMES) {
    const having = given.filter((h) => h[name] !== undefined)
    if (having.length === 0) continue
    const only = having.length === 1 ? having[0] : composeHooks(...having.map((h) => ({ [name]: h[name] })))
    Object.assign(out, { [name]: only?.[name] })
  }
  return out
}
