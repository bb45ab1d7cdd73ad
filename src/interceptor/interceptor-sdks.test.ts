import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { tool as aiTool, generateText, jsonSchema, stepCountIs } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LlmStep } from '../case/schema/step.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { tool } from '../engine/tool.ts'
import { startTestProvider, type TestProvider } from './internal/test-provider.ts'
import { startInterceptor } from './start-interceptor.ts'
import type { Interceptor } from './types.ts'

// None of these clients is wrapped: the interceptor alone records and replays them.
let p: TestProvider
let interceptor: Interceptor
beforeAll(async () => {
  p = await startTestProvider()
  interceptor = startInterceptor({ hosts: [p.provider.url] })
})
afterAll(async () => {
  await interceptor.close()
  await p.provider.close()
})

describe('@anthropic-ai/sdk through the interceptor', () => {
  it('messages.stream(): the same events and final message at replay, zero requests', async () => {
    p.script([
      { text: 'Refund of $49 issued.', chunkSize: 4, toolCalls: [{ name: 'notify', args: { to: 'A17' } }] },
    ])
    const anthropic = new Anthropic({
      baseURL: p.provider.url,
      apiKey: 'sk-ant-test-not-a-secret',
      maxRetries: 0,
    })
    const agent = async () => {
      const events: string[] = []
      const stream = anthropic.messages.stream({
        model: 'claude-test-model',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Refund A17' }],
        tools: [{ name: 'notify', input_schema: { type: 'object', properties: { to: { type: 'string' } } } }],
      })
      stream.on('streamEvent', (event) => events.push(JSON.stringify(event)))
      return { events, final: await stream.finalMessage() }
    }
    const rec = await recordRun(agent)
    expect(rec.output.final.content.map((b) => b.type)).toEqual(['text', 'tool_use'])
    expect(rec.output.events.length).toBeGreaterThan(6)
    const step = rec.loaded.steps[0] as LlmStep
    expect(step.provider).toBe('anthropic-messages')
    expect(step.response?.wire.chunks?.map((c) => c.event)).toContain('message_stop')
    expect(rec.text).not.toContain('sk-ant-test-not-a-secret')

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(p.received()).toBe(0)
    await session.finish({ output: null })
  })
})

describe('@google/genai through the interceptor', () => {
  const genai = () =>
    new GoogleGenAI({
      apiKey: 'AIzaSyTestKeyNotASecret0123456789abcd',
      httpOptions: { baseUrl: p.provider.url },
    })

  it('generateContent: same text at replay, zero requests, the key kept out of the cassette', async () => {
    p.script([{ text: 'A17 shipped on Monday.' }])
    const client = genai()
    const agent = async () =>
      (await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Where is A17?' })).text
    const rec = await recordRun(agent)
    expect(rec.output).toBe('A17 shipped on Monday.')
    expect(rec.loaded.steps[0]).toMatchObject({ type: 'llm', provider: 'gemini' })
    expect(rec.text).not.toContain('AIzaSyTestKeyNotASecret')

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe(rec.output)
    expect(p.received()).toBe(0)
    await session.finish({ output })
  })

  it('generateContentStream: the same chunks at replay', async () => {
    p.script([{ text: 'Refund of $49 issued for A17.', chunkSize: 6 }])
    const client = genai()
    const agent = async () => {
      const texts: Array<string | undefined> = []
      const stream = await client.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'Refund A17',
      })
      for await (const chunk of stream) texts.push(chunk.text)
      return texts
    }
    const rec = await recordRun(agent)
    expect(rec.output.join('')).toBe('Refund of $49 issued for A17.')
    expect(rec.output.length).toBeGreaterThan(3)

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(p.received()).toBe(0)
    await session.finish({ output: null })
  })
})

describe('the Vercel AI SDK (@ai-sdk/openai) through the interceptor', () => {
  it('generateText with a tool over several steps: same text and steps at replay, zero requests', async () => {
    p.script([
      { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' }, id: 'call_A17' }] },
      { toolCalls: [{ name: 'get_order', args: { order_id: 'B22' }, id: 'call_B22' }] },
      { text: 'A17 and B22 both shipped.' },
    ])
    let toolRuns = 0
    const getOrder = tool(
      async (input: { order_id: string }) => {
        toolRuns++
        return { id: input.order_id, status: 'shipped' }
      },
      { name: 'get_order', sideEffects: false },
    )
    const openai = createOpenAI({ apiKey: 'sk-test-not-a-secret', baseURL: `${p.provider.url}/v1` })
    const agent = async () => {
      const result = await generateText({
        model: openai.chat('gpt-4o-mini'),
        prompt: 'Where are A17 and B22?',
        tools: {
          get_order: aiTool({
            inputSchema: jsonSchema<{ order_id: string }>({
              type: 'object',
              properties: { order_id: { type: 'string' } },
              required: ['order_id'],
            }),
            execute: (input: { order_id: string }) => getOrder(input),
          }),
        },
        stopWhen: stepCountIs(5),
        maxRetries: 0,
      })
      return { text: result.text, steps: result.steps.map((s) => s.toolCalls.map((c) => c.input)) }
    }
    const rec = await recordRun(agent)
    expect(rec.output.text).toBe('A17 and B22 both shipped.')
    expect(rec.output.steps).toEqual([[{ order_id: 'A17' }], [{ order_id: 'B22' }], []])
    expect(rec.loaded.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm', 'tool', 'llm'])
    expect(toolRuns).toBe(2)

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(p.received()).toBe(0)
    expect(toolRuns).toBe(2)
    await session.finish({ output: null })
  })
})
