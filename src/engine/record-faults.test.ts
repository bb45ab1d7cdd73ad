import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import type { LlmStep } from '../case/schema/step.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider, ScriptedTurn } from '../testing/types.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

const MESSAGES = [{ role: 'user' as const, content: 'Where is A17?' }]

function openai(p: ScriptedProvider, maxRetries: number): OpenAI {
  return wrap(new OpenAI({ baseURL: `${p.url}/v1`, apiKey: 'test', maxRetries }))
}

describe('provider failures are recorded and replayed as they happened', () => {
  it.each([
    ['429', { fault: { type: 'rate_limit', retryAfter: 0 } }, 429],
    ['500', { fault: { type: 'server_error', status: 500 } }, 500],
  ] as const)('a %s then a 200: the SDK retry runs again at replay', async (_, fault, status) => {
    provider = await startScriptedProvider({ turns: [fault as ScriptedTurn, { text: 'ok after retry' }] })
    const client = openai(provider, 1)
    const agent = async () =>
      (await client.chat.completions.create({ model: 'gpt-5-mini', messages: MESSAGES })).choices[0]?.message
        .content
    const rec = await recordRun(agent)
    expect(rec.output).toBe('ok after retry')
    const steps = rec.loaded.steps as LlmStep[]
    expect(steps.map((s) => s.response?.wire.status)).toEqual([status, 200])
    expect(steps[0]?.error).toMatchObject({ name: 'ProviderError', status })
    expect(steps[0]?.request.requestHash).toBe(steps[1]?.request.requestHash)

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe('ok after retry')
    expect(provider.requests).toHaveLength(2)
    const run = await session.finish({ output: null })
    expect(run.steps.map((s) => (s as LlmStep).response?.wire.status)).toEqual([status, 200])
  })

  it('a 429 the SDK gives up on reaches the agent the same way at replay', async () => {
    provider = await startScriptedProvider({ turns: [{ fault: { type: 'rate_limit' } }] })
    const client = openai(provider, 0)
    const agent = () =>
      client.chat.completions.create({ model: 'gpt-5-mini', messages: MESSAGES }).then(
        () => 'ok',
        (e: InstanceType<typeof OpenAI.APIError>) => `${e.constructor.name} ${e.status}`,
      )
    const rec = await recordRun(agent)
    expect(rec.output).toBe('RateLimitError 429')
    const { output } = await replayRun(rec.loaded, agent)
    expect(output).toBe('RateLimitError 429')
  })

  it('a connection reset is recorded as the step’s error and replayed as a network error', async () => {
    provider = await startScriptedProvider({ turns: [{ fault: { type: 'reset' } }, { text: 'second try' }] })
    const client = openai(provider, 1)
    const agent = async () =>
      (await client.chat.completions.create({ model: 'gpt-5-mini', messages: MESSAGES })).choices[0]?.message
        .content
    const rec = await recordRun(agent)
    expect(rec.output).toBe('second try')
    const first = rec.loaded.steps[0] as LlmStep
    expect(first.response).toBeNull()
    expect(first.error).toMatchObject({ name: 'TypeError', message: 'fetch failed' })

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe('second try')
    expect(provider.requests).toHaveLength(2)
    const run = await session.finish({ output: null })
    expect((run.steps[0] as LlmStep).error).toEqual(first.error)
  })

  it('a stream cut by the provider is recorded incomplete and cut again at replay', async () => {
    provider = await startScriptedProvider({
      turns: [
        {
          text: 'This answer never finishes, sadly.',
          chunkSize: 3,
          fault: { type: 'cut_stream', afterEvents: 4 },
        },
      ],
    })
    const client = wrap(new Anthropic({ baseURL: provider.url, apiKey: 'test', maxRetries: 0 }))
    const agent = async () => {
      const texts: string[] = []
      try {
        const stream = await client.messages.create({
          model: 'claude-sonnet-4-5',
          max_tokens: 99,
          messages: MESSAGES,
          stream: true,
        })
        for await (const event of stream) {
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
            texts.push(event.delta.text)
        }
        return { texts, failed: false }
      } catch {
        return { texts, failed: true }
      }
    }
    const rec = await recordRun(agent)
    expect(rec.output.failed).toBe(true)
    const step = rec.loaded.steps[0] as LlmStep
    expect(step.response?.incomplete).toBe(true)
    expect(step.response?.wire.chunks).toHaveLength(4)

    const { output } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
  })

  it('a stream the caller cancels is recorded incomplete, with what arrived', async () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve'
    provider = await startScriptedProvider({ turns: [{ text, chunkSize: 4, chunkDelayMs: 15 }] })
    const client = openai(provider, 0)
    const agent = async () => {
      const stream = await client.chat.completions.create({
        model: 'gpt-5-mini',
        messages: MESSAGES,
        stream: true,
      })
      let seen = ''
      for await (const chunk of stream) {
        seen += chunk.choices[0]?.delta.content ?? ''
        if (seen.length >= 8) break // the agent has what it needs
      }
      return seen
    }
    const rec = await recordRun(agent)
    expect(rec.output.length).toBeGreaterThanOrEqual(8)
    const step = rec.loaded.steps[0] as LlmStep
    expect(step.response?.incomplete).toBe(true)
    const got = step.response?.normalized?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? ''
    expect(got.startsWith(rec.output)).toBe(true)
    expect(got.length).toBeLessThan(text.length)
    const { output } = await replayRun(rec.loaded, agent)
    expect(output).toBe(rec.output)
  })
})
