import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LlmStep } from '../case/schema/step.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { tool } from '../engine/tool.ts'
import { startTestProvider, type TestProvider } from './internal/test-provider.ts'
import { startInterceptor } from './start-interceptor.ts'
import type { Interceptor } from './types.ts'

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

function client(): OpenAI {
  // Not wrapped: the interceptor alone records and replays.
  return new OpenAI({ baseURL: `${p.provider.url}/v1`, apiKey: 'sk-test-not-a-secret', maxRetries: 0 })
}

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_order',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
    },
  },
]

describe('the interceptor records and replays the OpenAI SDK with no wrap()', () => {
  it('a plain chat call: same output, zero requests at replay', async () => {
    p.script([{ text: 'Order A17 is on its way.' }])
    const openai = client()
    const agent = async () =>
      (
        await openai.chat.completions.create({
          model: 'gpt-5-mini',
          messages: [{ role: 'user', content: 'Where is A17?' }],
        })
      ).choices[0]?.message.content
    const rec = await recordRun(agent)
    expect(rec.output).toBe('Order A17 is on its way.')
    expect(p.received()).toBe(1)
    const step = rec.loaded.steps[0] as LlmStep
    expect(step).toMatchObject({ type: 'llm', provider: 'openai-chat', endpoint: 'chat.completions' })
    expect(rec.text).not.toContain('sk-test-not-a-secret')

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe(rec.output)
    expect(p.received()).toBe(0)
    expect((await session.finish({ output })).steps).toHaveLength(1)
  })

  it('a streamed chat call replays chunk for chunk', async () => {
    p.script([{ text: 'Refund issued for order A17.', chunkSize: 5 }])
    const openai = client()
    const agent = async () => {
      const stream = await openai.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'Refund A17' }],
        stream: true,
      })
      const chunks: string[] = []
      for await (const chunk of stream) chunks.push(chunk.choices[0]?.delta.content ?? '')
      return chunks
    }
    const rec = await recordRun(agent)
    expect(rec.output.join('')).toBe('Refund issued for order A17.')
    expect(rec.output.length).toBeGreaterThan(4)
    expect((rec.loaded.steps[0] as LlmStep).response?.incomplete).toBe(false)

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(p.received()).toBe(0)
    await session.finish({ output: null })
  })

  it('a tools loop: model, tool, model; replay runs neither the provider nor the tool', async () => {
    p.script([
      { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] },
      { text: 'A17 shipped Monday.' },
    ])
    const openai = client()
    let toolRuns = 0
    const getOrder = tool(
      async (args: { order_id: string }) => {
        toolRuns++
        return { id: args.order_id, status: 'shipped' }
      },
      { name: 'get_order', sideEffects: false },
    )
    const agent = async () => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is A17?' }]
      for (let turn = 0; turn < 4; turn++) {
        const res = await openai.chat.completions.create({ model: 'gpt-5-mini', messages, tools: TOOLS })
        const message = res.choices[0]!.message
        messages.push(message)
        if (!message.tool_calls?.length) return message.content
        for (const call of message.tool_calls) {
          if (call.type !== 'function') continue
          const result = await getOrder(JSON.parse(call.function.arguments))
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
        }
      }
      return null
    }
    const rec = await recordRun(agent)
    expect(rec.output).toBe('A17 shipped Monday.')
    expect(rec.loaded.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(toolRuns).toBe(1)

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe(rec.output)
    expect(p.received()).toBe(0)
    expect(toolRuns).toBe(1)
    await session.finish({ output })
  })

  it('a call that is not a model call (GET /v1/models) is recorded and replayed as an http step', async () => {
    p.script([])
    const openai = client()
    const agent = async () => (await openai.models.list()).data.map((m) => m.id)
    const rec = await recordRun(agent)
    expect(rec.output.length).toBeGreaterThan(0)
    expect(rec.loaded.steps).toMatchObject([{ type: 'http', response: { status: 200 } }])
    expect(p.received()).toBe(1)

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(p.received()).toBe(0)
    await session.finish({ output })
  })
})
