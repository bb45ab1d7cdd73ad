import { afterEach, describe, expect, it } from 'vitest'
import type { JsonValue } from '../case/schema/json.ts'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import { getAdapter } from '../providers/registry.ts'
import { apiCall, post } from './internal/test-client.ts'
import { startScriptedProvider } from './start-scripted-provider.ts'
import type { PolicyContext, ScriptedProvider, ScriptPolicy } from './types.ts'

const open: ScriptedProvider[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()))
})

async function start(policy: ScriptPolicy, seed?: number): Promise<ScriptedProvider> {
  const provider = await startScriptedProvider({ policy, ...(seed === undefined ? {} : { seed }) })
  open.push(provider)
  return provider
}

/**
 * The typical stochastic agent: it obeys the system prompt's rule ("never refund more than the order
 * total") with probability p, and otherwise breaks it.
 */
const P_OBEY = 0.7
const refundPolicy: ScriptPolicy = (request, { rng }) => {
  const hasRule = request.system.some(
    (part) => part.type === 'text' && part.text.includes('Never refund more'),
  )
  const obeys = hasRule && rng.chance(P_OBEY)
  return { toolCalls: [{ name: 'issue_refund', args: { amount: obeys ? 49 : 490 } }] }
}

/** The refund amounts a run of `n` requests gets from a provider with this seed. */
async function amounts(seed: number, n: number): Promise<number[]> {
  const provider = await start(refundPolicy, seed)
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const res = await post(provider.url, apiCall('anthropic-messages', false))
    const read = getAdapter('anthropic-messages').normalizeResponse({
      status: res.status,
      headers: {},
      body: (await res.json()) as JsonValue,
    })
    const args = read?.toolCalls[0]?.args as { amount: number } | undefined
    out.push(args?.amount ?? Number.NaN)
  }
  return out
}

describe('a policy', () => {
  it('receives the normalized request and the context of the call', async () => {
    const seen: Array<{
      request: NormalizedRequest
      ctx: Omit<PolicyContext, 'rng' | 'requests'>
      earlier: number
    }> = []
    const provider = await start((request, { rng: _, requests, ...ctx }) => {
      seen.push({ request, ctx, earlier: requests.length })
      return { text: 'ok' }
    })
    await (await post(provider.url, apiCall('openai-chat', false, 'first question'))).text()
    await (await post(provider.url, apiCall('gemini', true, 'second question'))).text()

    expect(seen.map((s) => s.ctx)).toEqual([
      { index: 0, api: 'openai-chat', model: 'gpt-4o-mini', stream: false },
      { index: 1, api: 'gemini', model: seen[1]?.request.model, stream: true },
    ])
    expect(seen[1]?.request.model).toContain('gemini-2.5-flash')
    expect(seen.map((s) => s.earlier)).toEqual([0, 1])
    for (const [i, question] of ['first question', 'second question'].entries()) {
      const request = seen[i]?.request
      expect(request?.messages).toEqual([{ role: 'user', parts: [{ type: 'text', text: question }] }])
      expect(request?.system).toEqual([
        { type: 'text', text: 'You are a refund assistant. Never refund more than the order total.' },
      ])
      expect(request?.tools.map((t) => t.name)).toEqual(['get_order'])
    }
  })

  it('may be async', async () => {
    const provider = await start(async (request) => {
      await new Promise((r) => setTimeout(r, 20))
      return { text: `model was ${request.model}` }
    })
    const body = (await (await post(provider.url, apiCall('openai-chat', false))).json()) as {
      choices: Array<{ message: { content: string } }>
    }
    expect(body.choices[0]?.message.content).toBe('model was gpt-4o-mini')
  })

  it('obeying a rule with probability p gives the same replies for the same seed', async () => {
    const a = await amounts(1234, 50)
    const b = await amounts(1234, 50)
    expect(a).toEqual(b)
    const obeyed = a.filter((x) => x === 49).length / a.length
    // 50 draws at p = 0.7: the share lies within 0.45..0.95 for all but a vanishing share of seeds.
    expect(obeyed).toBeGreaterThan(0.45)
    expect(obeyed).toBeLessThan(0.95)
  })

  it('gives a different sequence for a different seed', async () => {
    expect(await amounts(1, 50)).not.toEqual(await amounts(2, 50))
  })

  it('that throws is answered with a 500 naming the policy error, and recorded', async () => {
    const provider = await start(() => {
      throw new Error('no rule for this request')
    })
    const res = await post(provider.url, apiCall('openai-responses', false))
    expect(res.status).toBe(500)
    const body = (await res.json()) as { error: { message: string; code: string } }
    expect(body.error).toMatchObject({
      code: 'E_SCRIPT_POLICY',
      message: expect.stringContaining('no rule for this request'),
    })
    expect(provider.requests[0]?.answer).toMatchObject({ kind: 'error', code: 'E_SCRIPT_POLICY' })
  })

  it('that returns an invalid turn is answered with a 500 naming the field', async () => {
    const provider = await start(() => ({ text: 'ok', chunk_size: 3 }) as never)
    const res = await post(provider.url, apiCall('gemini', false))
    expect(res.status).toBe(500)
    const body = (await res.json()) as { error: { message: string; status: string } }
    expect(body.error.status).toBe('INTERNAL')
    expect(body.error.message).toContain('unknown field "chunk_size"')
  })
})
