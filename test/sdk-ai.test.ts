import { createOpenAI } from '@ai-sdk/openai'
import { generateText, jsonSchema, type LanguageModel, stepCountIs, streamText, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import type { ScriptedTurn } from '../src/testing/index.ts'
import {
  FINAL_TEXT,
  GET_ORDER,
  ORDER,
  ORDER_PARAMS,
  QUESTION,
  SYSTEM,
  toolCallMessage,
  toolResultMessage,
  USER_MESSAGE,
} from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'
import { normalizedOf } from './helpers/sdk-wire.ts'

/**
 * The Vercel AI SDK (v7) through @ai-sdk/openai against the scripted provider: a multi-step agent loop
 * with one tool, on the chat model and on the Responses model. The loop must call the tool, send its
 * result back, and finish with the final text; what it sent normalizes to the conversation.
 */

const server = useScriptedProvider()
const MODEL = 'gpt-4o-mini'
const LOOKUP: ScriptedTurn = {
  text: 'Let me look that up.',
  toolCalls: [{ name: 'get_order', args: { order_id: 'A17' }, id: 'call_A17' }],
  usage: { inputTokens: 40, outputTokens: 12 },
}
const DONE: ScriptedTurn = { text: FINAL_TEXT, usage: { inputTokens: 60, outputTokens: 10 } }

function provider() {
  return createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` })
}

function agentTools(executed: unknown[]) {
  return {
    get_order: tool({
      description: GET_ORDER.description,
      inputSchema: jsonSchema<{ order_id: string }>(ORDER_PARAMS),
      execute: async (input: { order_id: string }) => {
        executed.push(input)
        return ORDER
      },
    }),
  }
}

const MODELS: Array<[string, () => LanguageModel, string]> = [
  ['chat', () => provider().chat(MODEL), 'openai-chat'],
  ['responses', () => provider().responses(MODEL), 'openai-responses'],
]

describe.each(MODELS)('ai generateText on the %s model', (_, model, api) => {
  it('runs the tool loop: calls the tool, sends its result back, finishes with the final text', async () => {
    server.script(LOOKUP, DONE)
    const executed: unknown[] = []
    const result = await generateText({
      model: model(),
      system: SYSTEM,
      prompt: QUESTION,
      tools: agentTools(executed),
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      timeout: 5_000,
      // The Responses model would otherwise refer to stored items by id instead of sending them.
      providerOptions: { openai: { store: false } },
    })

    expect(executed).toEqual([{ order_id: 'A17' }])
    expect(result.text).toBe(FINAL_TEXT)
    expect(result.finishReason).toBe('stop')
    expect(result.steps).toHaveLength(2)
    expect(result.steps[0]?.finishReason).toBe('tool-calls')
    expect(result.steps[0]?.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ['call_A17', 'get_order', { order_id: 'A17' }],
    ])
    expect(result.steps[0]?.toolResults.map((r) => r.output)).toEqual([ORDER])
    expect(result.totalUsage).toMatchObject({ inputTokens: 100, outputTokens: 22 })

    const calls = server.calls()
    expect(calls.map((c) => c.api)).toEqual([api, api])
    const first = normalizedOf(server.provider, calls[0]!)
    expect(first.system).toEqual([{ type: 'text', text: SYSTEM }])
    expect(first.messages).toEqual([USER_MESSAGE])
    expect(first.tools).toEqual([
      expect.objectContaining({ name: 'get_order', description: GET_ORDER.description }),
    ])
    expect(first.tools[0]?.parameters).toMatchObject({
      properties: ORDER_PARAMS.properties,
      required: ['order_id'],
    })
    const second = normalizedOf(server.provider, calls[1]!)
    expect(second.system).toEqual([{ type: 'text', text: SYSTEM }])
    expect(second.messages).toEqual([
      USER_MESSAGE,
      toolCallMessage('call_A17', 'Let me look that up.'),
      toolResultMessage('call_A17'),
    ])
  })

  it('streamText runs the same loop over streamed responses', async () => {
    server.script({ ...LOOKUP, chunkSize: 4 }, { ...DONE, chunkSize: 4 })
    const executed: unknown[] = []
    const result = streamText({
      model: model(),
      system: SYSTEM,
      prompt: QUESTION,
      tools: agentTools(executed),
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      timeout: 5_000,
      providerOptions: { openai: { store: false } },
    })
    const deltas: string[] = []
    for await (const delta of result.textStream) deltas.push(delta)

    expect(executed).toEqual([{ order_id: 'A17' }])
    expect(deltas.length).toBeGreaterThan(4)
    expect(deltas.join('')).toBe(`Let me look that up.${FINAL_TEXT}`)
    expect(await result.text).toBe(FINAL_TEXT)
    expect(await result.finishReason).toBe('stop')
    expect((await result.steps).map((s) => s.finishReason)).toEqual(['tool-calls', 'stop'])
    const calls = server.calls()
    expect(calls.map((c) => c.stream)).toEqual([true, true])
    expect(normalizedOf(server.provider, calls[1]!).messages.at(-1)).toEqual(toolResultMessage('call_A17'))
  })
})

describe('ai generateText on the responses model, with the default store', () => {
  it('refers to its stored assistant message by item_reference; the tool call and result still normalize', async () => {
    server.script(LOOKUP, DONE)
    const result = await generateText({
      model: provider().responses(MODEL),
      prompt: QUESTION,
      tools: agentTools([]),
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      timeout: 5_000,
    })
    expect(result.text).toBe(FINAL_TEXT)
    const second = server.calls()[1]!
    const input = (second.body as { input: Array<{ type?: string }> }).input
    expect(input.map((item) => item.type ?? 'message')).toEqual([
      'message',
      'item_reference',
      'function_call',
      'function_call_output',
    ])
    // The referenced text lives on the server, not in the request: only the call and its result remain.
    expect(normalizedOf(server.provider, second).messages).toEqual([
      USER_MESSAGE,
      toolCallMessage('call_A17'),
      toolResultMessage('call_A17'),
    ])
  })
})
