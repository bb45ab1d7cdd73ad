import Anthropic from '@anthropic-ai/sdk'
import { afterEach, describe, expect, it } from 'vitest'
import type { LlmStep } from '../case/schema/step.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

function client(p: ScriptedProvider): Anthropic {
  return wrap(new Anthropic({ baseURL: p.url, apiKey: 'sk-ant-test-not-a-secret', maxRetries: 0 }))
}

const PARAMS = {
  model: 'claude-sonnet-4-5',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Where is order A17?' }],
}

describe('wrap(new Anthropic()) records and replays', () => {
  it('messages.create: same message at replay, zero requests, version header kept and key left out', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'A17 shipped on Monday.' }] })
    const anthropic = client(provider)
    const agent = async () => {
      const message = await anthropic.messages.create(PARAMS)
      return { content: message.content, stop: message.stop_reason, usage: message.usage.output_tokens }
    }
    const rec = await recordRun(agent)
    expect(rec.output.content).toMatchObject([{ type: 'text', text: 'A17 shipped on Monday.' }])
    const step = rec.loaded.steps[0] as LlmStep
    expect(step.provider).toBe('anthropic-messages')
    const sent = provider.requests[0]?.headers['anthropic-version']
    expect(sent).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(step.request.wire.headers['anthropic-version']).toBe(sent)
    expect(Object.keys(step.request.wire.headers)).not.toContain('x-api-key')
    expect(rec.text).not.toContain('sk-ant-test-not-a-secret')

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(provider.requests).toHaveLength(1)
    await expect(session.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })
  })

  it('messages.stream(): the same events in the same order, and the same final message', async () => {
    provider = await startScriptedProvider({
      turns: [
        { text: 'Refund of $49 issued.', chunkSize: 4, toolCalls: [{ name: 'notify', args: { to: 'A17' } }] },
      ],
    })
    const anthropic = client(provider)
    const agent = async () => {
      const events: string[] = []
      const stream = anthropic.messages.stream({
        ...PARAMS,
        tools: [{ name: 'notify', input_schema: { type: 'object', properties: { to: { type: 'string' } } } }],
      })
      stream.on('streamEvent', (event) => events.push(JSON.stringify(event)))
      const final = await stream.finalMessage()
      return { events, final }
    }
    const rec = await recordRun(agent)
    expect(rec.output.events.length).toBeGreaterThan(6)
    expect(rec.output.final.content.map((b) => b.type)).toEqual(['text', 'tool_use'])
    const recorded = (rec.loaded.steps[0] as LlmStep).response
    expect(recorded?.incomplete).toBe(false)
    expect(recorded?.wire.chunks?.map((c) => c.event)).toContain('message_stop')

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output.events).toEqual(rec.output.events)
    expect(output.final).toEqual(rec.output.final)
    expect(provider.requests).toHaveLength(1)
    const run = await session.finish({ output: null })
    expect((run.steps[0] as LlmStep).response?.wire.chunks).toEqual(recorded?.wire.chunks)
  })
})
