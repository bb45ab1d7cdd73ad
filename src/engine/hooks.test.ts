import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import type { LlmStep, Step } from '../case/schema/step.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { recordRun } from './internal/test-record-replay.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

function client(p: ScriptedProvider): OpenAI {
  return wrap(new OpenAI({ baseURL: `${p.url}/v1`, apiKey: 'test', maxRetries: 0 }))
}

const ask = (openai: OpenAI) =>
  openai.chat.completions
    .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
    .then((r) => r.choices[0]?.message.content)

describe('session hooks', () => {
  it('onRequest may rewrite the request: the provider receives the new one and the step records it', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'hello' }] })
    const seen: Step[] = []
    const statuses: number[] = []
    const rec = await recordRun(() => ask(client(provider!)), {
      hooks: {
        onRequest: (ctx) =>
          ctx.normalized ? { rewrite: { ...ctx.normalized, model: 'gpt-5-mini' } } : undefined,
        onResponse: (ctx) => statuses.push(ctx.status),
        onStep: (step) => seen.push(step),
      },
    })
    expect(rec.output).toBe('hello')
    expect(provider.requests[0]?.normalized?.model).toBe('gpt-5-mini')
    expect((rec.loaded.steps[0] as LlmStep).request.normalized?.model).toBe('gpt-5-mini')
    expect(statuses).toEqual([200])
    expect(seen.map((s) => s.index)).toEqual([0])
  })

  it('onRequest may answer: the provider is never called, the answer is recorded', async () => {
    provider = await startScriptedProvider({ turns: [] })
    const body = {
      id: 'chatcmpl-hook',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4o',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'from the hook' }, finish_reason: 'stop' },
      ],
    }
    const rec = await recordRun(() => ask(client(provider!)), {
      hooks: { onRequest: () => ({ respond: Response.json(body) }) },
    })
    expect(rec.output).toBe('from the hook')
    expect(provider.requests).toHaveLength(0)
    expect((rec.loaded.steps[0] as LlmStep).response?.normalized?.parts).toEqual([
      { type: 'text', text: 'from the hook' },
    ])
  })

  it('onRequest may block: the caller sees a connection error, the step says why', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'never' }] })
    const rec = await recordRun(() => ask(client(provider!)).catch((e: Error) => e.constructor.name), {
      hooks: { onRequest: () => ({ block: 'no model calls in this test' }) },
    })
    expect(rec.output).toBe('APIConnectionError')
    expect(provider.requests).toHaveLength(0)
    expect(rec.loaded.steps[0]?.error).toEqual({
      name: 'BlockedRequest',
      message: 'no model calls in this test',
    })
  })

  it('a throwing onStep is a capture failure kept for finish(), not an error in the agent', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'fine' }] })
    await expect(
      recordRun(() => ask(client(provider!)), {
        hooks: {
          onStep: () => {
            throw new Error('hook bug')
          },
        },
      }),
    ).rejects.toMatchObject({ code: 'E_CAPTURE', message: expect.stringContaining('hook bug') })
  })
})
