import OpenAI from 'openai'
import OpenAIv6 from 'openai-v6'
import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { NormalizedRequest, NormalizedResponse } from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { openaiChat } from './openai-chat.ts'
import { openaiResponses } from './openai-responses.ts'
import { formatSse } from './sse.ts'
import type { ProviderAdapter } from './types.ts'

/**
 * The official SDK (v7 and v6) reads what the adapters write: a custom `fetch` answers each call
 * with `writeResponse` or `writeStream` of one normalized response, and records the request the SDK
 * sent, which must read back through `normalizeRequest` and be written back unchanged.
 */

const ANSWER: NormalizedResponse = {
  model: 'gpt-5-mini',
  requestId: null,
  parts: [
    { type: 'reasoning', text: 'The user wants order A17.', opaque: true },
    { type: 'text', text: 'Let me look up the order.' },
  ],
  toolCalls: [
    { type: 'tool_call', id: 'call_A17', name: 'get_order', args: { order_id: 'A17' } },
    { type: 'tool_call', id: 'call_B', name: 'get_order', args: { order_id: 'B2' } },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 120, outputTokens: 40, cachedTokens: 64, reasoningTokens: 16 },
}

const TOOL = {
  name: 'get_order',
  description: 'Look up an order by id',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
}

type Client = InstanceType<typeof OpenAI>

function serve(adapter: ProviderAdapter, sent: WireRequest[]): typeof fetch {
  return async (input, init) => {
    const body = JSON.parse(String(init?.body)) as JsonObject
    const headers = Object.fromEntries(new Headers(init?.headers).entries())
    const request: WireRequest = { method: init?.method ?? 'GET', url: String(input), headers, body }
    sent.push(request)
    const normalized: NormalizedRequest = adapter.normalizeRequest(request)
    const options = { id: adapter.id === 'openai-chat' ? 'chatcmpl-sdk' : 'resp_sdk', request: normalized }
    if (!adapter.isStreaming(request))
      return Response.json(adapter.writeResponse(ANSWER, options), { headers: { 'x-request-id': 'req_sdk' } })
    const text = adapter.writeStream(ANSWER, options).map(formatSse).join('')
    return new Response(text, { headers: { 'content-type': 'text/event-stream' } })
  }
}

const SDKS = [
  ['openai v7', (f: typeof fetch) => new OpenAI({ apiKey: 'sk-test', fetch: f, maxRetries: 0 })],
  [
    'openai v6',
    (f: typeof fetch) => new OpenAIv6({ apiKey: 'sk-test', fetch: f, maxRetries: 0 }) as unknown as Client,
  ],
] as const

describe.each(SDKS)('%s reads what the adapters write', (_, client) => {
  it('chat: create() and stream().finalChatCompletion() give the same message and usage', async () => {
    const sent: WireRequest[] = []
    const openai = client(serve(openaiChat, sent))
    const params = {
      model: 'gpt-5-mini',
      messages: [{ role: 'user' as const, content: 'Refund A17' }],
      tools: [{ type: 'function' as const, function: TOOL }],
    }
    const plain = await openai.chat.completions.create(params)
    const streamed = await openai.chat.completions
      .stream({ ...params, stream_options: { include_usage: true } })
      .finalChatCompletion()
    for (const completion of [plain, streamed]) {
      expect(completion.choices[0]?.message.content).toBe('Let me look up the order.')
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls')
      expect(
        completion.choices[0]?.message.tool_calls?.map((c) => c.type === 'function' && c.function.arguments),
      ).toEqual(['{"order_id":"A17"}', '{"order_id":"B2"}'])
      expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 40 })
    }
    expect(streamed.id).toBe('chatcmpl-sdk')
    for (const request of sent)
      expect(openaiChat.writeRequest(openaiChat.normalizeRequest(request), request)).toStrictEqual(request)
  })

  it('responses: create() and stream().finalResponse() give the same output and usage', async () => {
    const sent: WireRequest[] = []
    const openai = client(serve(openaiResponses, sent))
    const params = {
      model: 'gpt-5-mini',
      instructions: 'You are a refund assistant.',
      input: 'Refund A17',
      tools: [{ type: 'function' as const, strict: false, ...TOOL }],
    }
    const plain = await openai.responses.create(params)
    const streamed = await openai.responses.stream(params).finalResponse()
    for (const response of [plain, streamed]) {
      expect(response.id).toBe('resp_sdk')
      expect(response.output_text).toBe('Let me look up the order.')
      expect(response.output.map((o) => o.type)).toEqual([
        'reasoning',
        'message',
        'function_call',
        'function_call',
      ])
      expect(response.usage).toMatchObject({ input_tokens: 120, output_tokens: 40, total_tokens: 160 })
      const back = openaiResponses.normalizeResponse({
        status: 200,
        headers: {},
        body: JSON.parse(JSON.stringify(response)),
      })
      expect(back).toStrictEqual({ ...ANSWER, requestId: 'resp_sdk' })
    }
    for (const request of sent)
      expect(openaiResponses.writeRequest(openaiResponses.normalizeRequest(request), request)).toStrictEqual(
        request,
      )
  })

  it('responses: the raw event iterator sees the whole life cycle with increasing sequence numbers', async () => {
    const openai = client(serve(openaiResponses, []))
    const stream = await openai.responses.create({ model: 'gpt-5-mini', input: 'Refund A17', stream: true })
    const events: Array<{ type: string; sequence_number: number }> = []
    for await (const event of stream) events.push(event)
    expect(events[0]?.type).toBe('response.created')
    expect(events.at(-1)?.type).toBe('response.completed')
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    expect(events.filter((e) => e.type === 'response.output_item.added')).toHaveLength(4)
  })
})
