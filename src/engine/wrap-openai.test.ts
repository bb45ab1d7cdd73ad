import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import type { LlmStep } from '../case/schema/step.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { runInSession } from './context.ts'
import { recordRun, replayRun } from './internal/test-record-replay.ts'
import { Session } from './session.ts'
import { tool } from './tool.ts'
import { wrap } from './wrap.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

function client(p: ScriptedProvider): OpenAI {
  return wrap(new OpenAI({ baseURL: `${p.url}/v1`, apiKey: 'sk-test-not-a-secret', maxRetries: 0 }))
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

describe('wrap(new OpenAI()) records and replays', () => {
  it('returns the same client', async () => {
    provider = await startScriptedProvider({ turns: [] })
    const raw = new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'x' })
    expect(wrap(raw)).toBe(raw)
  })

  it('a plain chat call: same output at replay, and no request reaches the provider', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'Order A17 is on its way.' }] })
    const openai = client(provider)
    const agent = async () =>
      (
        await openai.chat.completions.create({
          model: 'gpt-5-mini',
          messages: [{ role: 'user', content: 'Where is A17?' }],
        })
      ).choices[0]?.message.content
    const rec = await recordRun(agent)
    expect(rec.output).toBe('Order A17 is on its way.')
    expect(provider.requests).toHaveLength(1)
    expect(rec.loaded.steps).toHaveLength(1)
    const step = rec.loaded.steps[0] as LlmStep
    expect(step).toMatchObject({ type: 'llm', provider: 'openai-chat', endpoint: 'chat.completions' })
    expect(step.response?.normalized?.parts).toEqual([{ type: 'text', text: 'Order A17 is on its way.' }])
    expect(rec.loaded.usage.llmCalls).toBe(1)
    expect(rec.loaded.usage.outputTokens).toBeGreaterThan(0)
    // The API key is never stored, not even redacted.
    expect(Object.keys(step.request.wire.headers)).not.toContain('authorization')
    expect(rec.text).not.toContain('sk-test-not-a-secret')

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe(rec.output)
    expect(provider.requests).toHaveLength(1)
    const run = await session.finish({ output })
    expect(run.steps).toHaveLength(1)
    expect(run.links.replayOf).toBe(rec.loaded.id)
  })

  it('a streamed chat call replays chunk for chunk', async () => {
    provider = await startScriptedProvider({
      turns: [{ text: 'Refund issued for order A17.', chunkSize: 5 }],
    })
    const openai = client(provider)
    const agent = async () => {
      const stream = await openai.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'Refund A17' }],
        stream: true,
      })
      const chunks: string[] = []
      for await (const chunk of stream) chunks.push(JSON.stringify(chunk))
      return chunks
    }
    const rec = await recordRun(agent)
    expect(rec.output.length).toBeGreaterThan(4)
    const recorded = (rec.loaded.steps[0] as LlmStep).response
    expect(recorded?.incomplete).toBe(false)
    expect(recorded?.wire.chunks?.length).toBeGreaterThan(4)
    expect(recorded?.normalized?.parts).toEqual([{ type: 'text', text: 'Refund issued for order A17.' }])

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(provider.requests).toHaveLength(1)
    const run = await session.finish({ output: null })
    expect((run.steps[0] as LlmStep).response?.wire.chunks?.map((c) => c.data)).toEqual(
      recorded?.wire.chunks?.map((c) => c.data),
    )
  })

  it('a tools loop: model call, wrapped tool, model call; replay runs neither the provider nor the tool', async () => {
    provider = await startScriptedProvider({
      turns: [
        { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] },
        { text: 'A17 shipped on Monday.' },
      ],
    })
    const openai = client(provider)
    let toolRuns = 0
    const getOrder = tool(
      async (args: { order_id: string }) => {
        toolRuns++
        return { id: args.order_id, status: 'shipped', shippedOn: 'Monday' }
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
    expect(rec.output).toBe('A17 shipped on Monday.')
    expect(toolRuns).toBe(1)
    expect(rec.loaded.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
    expect(rec.loaded.steps[1]).toMatchObject({
      name: 'get_order',
      args: { order_id: 'A17' },
      sideEffects: false,
    })
    expect(rec.loaded.usage).toMatchObject({ llmCalls: 2, toolCalls: 1 })

    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe('A17 shipped on Monday.')
    expect(toolRuns).toBe(1)
    expect(provider.requests).toHaveLength(2)
    const run = await session.finish({ output })
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
  })

  it('.withResponse() and the .stream() helper go through the Session too', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'one' }, { text: 'two, streamed' }] })
    const openai = client(provider)
    const agent = async () => {
      const { data, response } = await openai.chat.completions
        .create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'a' }] })
        .withResponse()
      const final = await openai.chat.completions
        .stream({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'b' }] })
        .finalChatCompletion()
      return [data.choices[0]?.message.content, response.status, final.choices[0]?.message.content]
    }
    const rec = await recordRun(agent)
    expect(rec.output).toEqual(['one', 200, 'two, streamed'])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(provider.requests).toHaveLength(2)
    await expect(session.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })
  })

  it('a call that is not a model call is an http step with its label, replayed too', async () => {
    provider = await startScriptedProvider({ turns: [] })
    const openai = client(provider)
    const agent = async () => (await openai.models.list()).data.map((m) => m.id)
    const rec = await recordRun(agent)
    expect(rec.output.length).toBeGreaterThan(0)
    expect(rec.loaded.steps).toMatchObject([
      { type: 'http', label: 'models.list', response: { status: 200 } },
    ])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toEqual(rec.output)
    expect(provider.requests).toHaveLength(1)
    await expect(session.finish({ output: null })).resolves.toMatchObject({ status: 'ok' })
  })

  it('outside a Session and in passthrough, calls go straight to the provider and nothing is recorded', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'one' }, { text: 'two' }] })
    const openai = client(provider)
    const ask = async () =>
      (
        await openai.chat.completions.create({
          model: 'gpt-5-mini',
          messages: [{ role: 'user', content: 'x' }],
        })
      ).choices[0]?.message.content
    expect(await ask()).toBe('one')
    const session = new Session({ mode: 'passthrough' })
    expect(await runInSession(session, ask)).toBe('two')
    expect(provider.requests).toHaveLength(2)
    expect((await session.finish({ output: null })).steps).toEqual([])
  })
})
