import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { SseChunk } from '../case/schema/step.ts'
import { openaiChat } from './openai-chat.ts'
import { parseSse } from './sse.ts'

function chunk(delta: JsonObject, finish: string | null = null, extra: JsonObject = {}): SseChunk {
  const body = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-5', ...extra }
  return { data: JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] }), atMs: 0 }
}
const DONE: SseChunk = { data: '[DONE]', atMs: 0 }

describe('openaiChat responses', () => {
  const body = (message: JsonObject, finish: string | null, usage?: JsonObject): JsonObject => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-5',
    choices: [
      { index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finish },
    ],
    ...(usage ? { usage } : {}),
  })

  it('is null for an error status, and takes the request id from x-request-id when there is one', () => {
    const ok = body({ content: 'Hi' }, 'stop')
    expect(
      openaiChat.normalizeResponse({ status: 429, headers: {}, body: { error: { message: 'slow down' } } }),
    ).toBeNull()
    expect(
      openaiChat.normalizeResponse({ status: 200, headers: { 'x-request-id': 'req_9' }, body: ok })
        ?.requestId,
    ).toBe('req_9')
    expect(openaiChat.normalizeResponse({ status: 200, headers: {}, body: ok })?.requestId).toBe('chatcmpl-1')
  })

  it('maps finish reasons into the one vocabulary', () => {
    const reason = (finish: string | null) =>
      openaiChat.normalizeResponse({ status: 200, headers: {}, body: body({ content: 'x' }, finish) })
        ?.finishReason
    expect([reason('stop'), reason('length'), reason('tool_calls'), reason('function_call')]).toEqual([
      'stop',
      'length',
      'tool_calls',
      'tool_calls',
    ])
    expect([reason('content_filter'), reason('error'), reason('eos'), reason(null)]).toEqual([
      'content_filter',
      'error',
      'stop',
      null,
    ])
  })

  it('a non-streamed answer and its streamed twin normalize alike', () => {
    const usage = {
      prompt_tokens: 20,
      completion_tokens: 9,
      total_tokens: 29,
      prompt_tokens_details: { cached_tokens: 4 },
    }
    const plain = body(
      {
        content: 'Checking.',
        reasoning_content: 'Need the order.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_order', arguments: '{"order_id":"A17"}' },
          },
        ],
      },
      'tool_calls',
      usage,
    )
    const stream = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Need the ' }),
      chunk({ reasoning_content: 'order.' }),
      chunk({ content: 'Check' }),
      chunk({ content: 'ing.' }),
      chunk({
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'get_order', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"order_id":' } }] }),
      chunk({ tool_calls: [{ index: 0, id: null, function: { name: null, arguments: '"A17"}' } }] }),
      chunk({}, 'tool_calls'),
      {
        data: JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          model: 'gpt-5',
          choices: [],
          usage,
        }),
        atMs: 0,
      },
      DONE,
    ]
    const fromBody = openaiChat.normalizeResponse({ status: 200, headers: {}, body: plain })
    const fromStream = openaiChat.normalizeResponse({ status: 200, headers: {}, body: null, chunks: stream })
    expect(fromStream).toStrictEqual(fromBody)
    expect(fromBody?.usage).toStrictEqual({ inputTokens: 20, outputTokens: 9, cachedTokens: 4 })
    expect(openaiChat.assembleStream(stream).incomplete).toBe(false)
  })
})

describe('openaiChat.assembleStream: streams that did not end well keep what arrived', () => {
  it('a finish reason without [DONE] is still incomplete', () => {
    const result = openaiChat.assembleStream([chunk({ content: 'Hi' }), chunk({}, 'stop')])
    expect(result.incomplete).toBe(true)
    expect(result.response.finishReason).toBe('stop')
    expect(result.response.parts).toStrictEqual([{ type: 'text', text: 'Hi' }])
  })

  it('an error chunk makes the stream incomplete with finish reason error', () => {
    const error = { data: JSON.stringify({ error: { message: 'upstream failed', code: 502 } }), atMs: 3 }
    const result = openaiChat.assembleStream([chunk({ content: 'Par' }), error, DONE])
    expect(result).toMatchObject({
      incomplete: true,
      response: { finishReason: 'error', parts: [{ type: 'text', text: 'Par' }] },
    })
  })

  it('a chunk cut mid-JSON is skipped and marks the stream incomplete', () => {
    const text = `${chunk({ content: 'One' }).data}\n\ndata: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" tw`
    const result = openaiChat.assembleStream(parseSse(`data: ${text}`))
    expect(result).toMatchObject({
      incomplete: true,
      response: { parts: [{ type: 'text', text: 'One' }], finishReason: null },
    })
  })

  it('cut tool arguments are kept as text; events after [DONE] are ignored; other choices too', () => {
    const result = openaiChat.assembleStream([
      chunk({ tool_calls: [{ index: 1, id: 'call_b', function: { name: 'b', arguments: '{"x":1}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'a', arguments: '{"q":"pa' } }] }),
      {
        data: JSON.stringify({
          id: 'chatcmpl-1',
          choices: [{ index: 1, delta: { content: 'other choice' } }],
        }),
        atMs: 0,
      },
      chunk({}, 'tool_calls'),
      DONE,
      chunk({ content: 'late' }),
    ])
    expect(result.incomplete).toBe(false)
    expect(result.response.parts).toStrictEqual([])
    expect(result.response.toolCalls).toStrictEqual([
      { type: 'tool_call', id: 'call_a', name: 'a', args: null, argsText: '{"q":"pa' },
      { type: 'tool_call', id: 'call_b', name: 'b', args: { x: 1 } },
    ])
  })

  it('an empty stream is incomplete and says nothing', () => {
    expect(openaiChat.assembleStream([])).toStrictEqual({
      incomplete: true,
      response: { model: null, requestId: null, parts: [], toolCalls: [], finishReason: null, usage: null },
    })
  })
})
