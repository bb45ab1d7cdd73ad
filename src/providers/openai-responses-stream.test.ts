import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { SseChunk } from '../case/schema/step.ts'
import { openaiResponses } from './openai-responses.ts'

function event(type: string, payload: JsonObject = {}): SseChunk {
  return { event: type, data: JSON.stringify({ type, ...payload }), atMs: 0 }
}

const RESPONSE = {
  id: 'resp_1',
  object: 'response',
  model: 'gpt-5',
  status: 'in_progress',
  output: [],
  usage: null,
}

describe('openaiResponses responses and streams', () => {
  const output: JsonObject[] = [
    {
      id: 'rs_1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Plan.' }],
      encrypted_content: 'gAAA',
    },
    {
      id: 'msg_1',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
    },
    {
      id: 'fc_1',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: 'f',
      arguments: '{"a":1}',
    },
  ]
  const completed: JsonObject = {
    ...RESPONSE,
    status: 'completed',
    output,
    usage: {
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 10 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 80,
    },
  }

  it('a plain response and its streamed twin normalize alike', () => {
    const stream = [
      event('response.created', { response: RESPONSE, sequence_number: 0 }),
      event('response.output_item.added', {
        output_index: 0,
        item: { id: 'rs_1', type: 'reasoning', summary: [] },
      }),
      event('response.reasoning_summary_text.delta', {
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 0,
        delta: 'Plan.',
      }),
      event('response.output_item.done', { output_index: 0, item: output[0]! }),
      event('response.output_item.added', {
        output_index: 1,
        item: { ...output[1]!, content: [] },
      }),
      event('response.output_text.delta', {
        item_id: 'msg_1',
        output_index: 1,
        content_index: 0,
        delta: 'Done.',
      }),
      event('response.output_item.done', { output_index: 1, item: output[1]! }),
      event('response.output_item.added', {
        output_index: 2,
        item: { ...output[2]!, arguments: '' },
      }),
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '{"a":1}' }),
      event('response.output_item.done', { output_index: 2, item: output[2]! }),
      event('response.completed', { response: completed }),
    ]
    const fromBody = openaiResponses.normalizeResponse({ status: 200, headers: {}, body: completed })
    expect(
      openaiResponses.normalizeResponse({ status: 200, headers: {}, body: null, chunks: stream }),
    ).toStrictEqual(fromBody)
    expect(fromBody).toStrictEqual({
      model: 'gpt-5',
      requestId: 'resp_1',
      parts: [
        { type: 'reasoning', text: 'Plan.', opaque: true },
        { type: 'text', text: 'Done.' },
      ],
      toolCalls: [{ type: 'tool_call', id: 'call_1', name: 'f', args: { a: 1 } }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 50, outputTokens: 30, cachedTokens: 10, reasoningTokens: 20 },
    })
    // Without the terminal event the same items are rebuilt from the item events, but the stream is incomplete.
    const cut = openaiResponses.assembleStream(stream.slice(0, -1))
    expect(cut.incomplete).toBe(true)
    expect(cut.response).toStrictEqual({ ...fromBody, finishReason: null, usage: null })
  })

  it.each([
    ['content_filter', 'content_filter'],
    ['max_output_tokens', 'length'],
  ])('response.incomplete (%s) is a complete stream with finish reason %s', (reason, finish) => {
    const result = openaiResponses.assembleStream([
      event('response.created', { response: RESPONSE }),
      event('response.incomplete', {
        response: { ...RESPONSE, status: 'incomplete', incomplete_details: { reason } },
      }),
    ])
    expect(result.incomplete).toBe(false)
    expect(result.response.finishReason).toBe(finish)
  })

  it('an error event without a terminal event is incomplete with finish reason error; [DONE] is tolerated', () => {
    const errored = openaiResponses.assembleStream([
      event('response.created', { response: RESPONSE }),
      event('error', { code: 'server_error', message: 'boom' }),
    ])
    expect(errored).toMatchObject({ incomplete: true, response: { finishReason: 'error', model: 'gpt-5' } })
    const done = openaiResponses.assembleStream([
      event('response.completed', { response: { ...RESPONSE, status: 'completed' } }),
      { data: '[DONE]', atMs: 0 },
    ])
    expect(done).toMatchObject({ incomplete: false, response: { finishReason: 'stop' } })
  })

  it('is null for an error status and prefers the x-request-id header', () => {
    expect(openaiResponses.normalizeResponse({ status: 500, headers: {}, body: { error: {} } })).toBeNull()
    const r = openaiResponses.normalizeResponse({
      status: 200,
      headers: { 'x-request-id': 'req_1' },
      body: completed,
    })
    expect(r?.requestId).toBe('req_1')
  })
})
