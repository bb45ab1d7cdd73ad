import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { ExchangeContext, SessionHooks } from '../engine/types.ts'
import { layerHooks } from './layer-hooks.ts'

const request = { model: 'gpt-5-mini' } as unknown as NormalizedRequest
const ctx = { kind: 'llm', normalized: request } as unknown as ExchangeContext

describe('layerHooks', () => {
  it('keeps a lone onRequest whole (its baseUrl too) and joins the onStep hooks in order', async () => {
    const seen: string[] = []
    const fork: SessionHooks = { onRequest: () => ({ rewrite: request, baseUrl: 'http://127.0.0.1:1' }) }
    const a: SessionHooks = { onStep: () => seen.push('a') }
    const b: SessionHooks = { onStep: () => seen.push('b') }
    const hooks = layerHooks(a, fork, undefined, b)
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
    await layerHooks(first, second).onRequest?.(ctx)
    expect(models).toEqual(['first'])
  })

  it('returns a lone set as it is, so its methods keep their `this`', () => {
    const set: SessionHooks = { onStep() {} }
    expect(layerHooks(undefined, set)).toBe(set)
    expect(layerHooks()).toEqual({})
  })
})
