import type { SessionHooks } from '../../engine/types.ts'

/**
 * Joins several hook sets into one, in order: each `onStep` and `onResponse` runs; `onRequest` runs until
 * one decides (respond or block), and a rewrite is what the next `onRequest` sees. A rewrite's `baseUrl`
 * (a fork sending the call to another origin) is kept in the joined decision.
 *
 * @example
 * new Session({ mode: 'record', hooks: composeHooks(userHooks, checks.hooks) })
 */
export function composeHooks(...sets: ReadonlyArray<SessionHooks | undefined>): SessionHooks {
  const hooks = sets.filter((h): h is SessionHooks => h !== undefined)
  if (hooks.length === 0) return {}
  if (hooks.length === 1) return hooks[0] as SessionHooks
  const out: SessionHooks = {}
  const onRequest = hooks.flatMap((h) => (h.onRequest ? [h.onRequest] : []))
  const onResponse = hooks.flatMap((h) => (h.onResponse ? [h.onResponse] : []))
  const onStep = hooks.flatMap((h) => (h.onStep ? [h.onStep] : []))
  if (onRequest.length > 0) {
    out.onRequest = async (ctx) => {
      let current = ctx
      let baseUrl: string | undefined
      for (const hook of onRequest) {
        const decision = await hook(current)
        if (decision === undefined) continue
        if ('rewrite' in decision) {
          current = { ...current, normalized: decision.rewrite }
          baseUrl = decision.baseUrl ?? baseUrl
          continue
        }
        return decision
      }
      if (current === ctx) return undefined
      const rewrite = current.normalized as NonNullable<typeof ctx.normalized>
      return baseUrl === undefined ? { rewrite } : { rewrite, baseUrl }
    }
  }
  if (onResponse.length > 0) {
    out.onResponse = (ctx) => {
      for (const hook of onResponse) hook(ctx)
    }
  }
  if (onStep.length > 0) {
    out.onStep = (step, session) => {
      for (const hook of onStep) hook(step, session)
    }
  }
  return out
}
