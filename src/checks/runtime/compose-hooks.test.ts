import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import type { ExchangeContext, SessionHooks } from '../../engine/types.ts'
import { composeHooks } from './compose-hooks.ts'

const request = { model: 'gpt-5-mini' } as unknown as NormalizedRequest
const ctx = { kind: 'llm', normalized: request } as unknown as ExchangeContext

describe('composeHooks', () => {
  it("keeps a rewrite's baseUrl when sets are joined, and runs the onStep hooks in order", async () => {
    const seen: string[] = []
    const fork: SessionHooks = { onRequest: () => ({ rewrite: request, baseUrl: 'http://127.0.0.1:1' }) }
    const a: SessionHooks = { onStep: () => seen.push('a') }
    const b: SessionHooks = { onStep: () => seen.push('b') }
    const hooks = composeHooks(a, fork, undefined, b)
    expect(await hooks.onRequest?.(ctx)).toEqual({ rewrite: request, baseUrl: 'http://127.0.0.1:1' })
    hooks.onStep?.({} as never, {} as never)
    expect(seen).toEqual(['a', 'b'])
  })

  it('passes a rewrite on to the next onRequest when several sets have one', async () => {
    const first: SessionHooks = {
      onRequest: () => ({ rewrite: { ...request, model: 'first' } as NormalizedRequest }),
    }
    const models: unknown[] = []
    const second: SessionHooks = {
      onRequest: (c) => {
        models.push(c.normalized?.model)
        return undefined
      },
    }
    await composeHooks(first, second).onRequest?.(ctx)
    expect(models).toEqual(['first'])
  })

  it('keeps the baseUrl of an earlier rewrite when a later onRequest rewrites again', async () => {
    const fork: SessionHooks = { onRequest: () => ({ rewrite: request, baseUrl: 'http://127.0.0.1:1' }) }
    const later: SessionHooks = {
      onRequest: (c) => ({ rewrite: { ...c.normalized, model: 'later' } as NormalizedRequest }),
    }
    expect(await composeHooks(fork, later).onRequest?.(ctx)).toEqual({
      rewrite: { ...request, model: 'later' },
      baseUrl: 'http://127.0.0.1:1',
    })
  })

  it('returns a lone set as it is, so its methods keep their `this`', () => {
    const set: SessionHooks = { onStep() {} }
    expect(composeHooks(undefined, set)).toBe(set)
    expect(composeHooks()).toEqual({})
  })
})
