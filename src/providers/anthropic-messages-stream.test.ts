import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { NormalizedResponse } from '../case/schema/normalized.ts'
import { anthropicMessages } from './anthropic-messages.ts'
import { formatSse, parseSse, sseJson } from './sse.ts'

const full: NormalizedResponse = {
  model: 'claude-sonnet-4-5',
  requestId: 'msg_01Full',
  parts: [
    { type: 'reasoning', text: 'The user wants a refund; check the total first. 🧾' },
    { type: 'reasoning', text: '', opaque: true },
    { type: 'text', text: 'Refunding $49 — the order total. ✅ Done.' },
  ],
  toolCalls: [
    {
      type: 'tool_call',
      id: 'toolu_01A',
      name: 'issue_refund',
      args: { order_id: 'A17', amount: 49, note: 'broken box ✉' },
    },
    { type: 'tool_call', id: 'toolu_01B', name: 'notify', args: {} },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 1200, outputTokens: 310, cachedTokens: 1000, reasoningTokens: 120 },
}

const variants: Array<[string, NormalizedResponse]> = [
  ['everything', full],
  ['text only', { ...full, parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop' }],
  [
    'nothing at all',
    { ...full, parts: [], toolCalls: [], finishReason: 'length', usage: { inputTokens: 5, outputTokens: 0 } },
  ],
  [
    'a refusal',
    { ...full, parts: [{ type: 'text', text: '' }], toolCalls: [], finishReason: 'content_filter' },
  ],
]

describe('anthropicMessages.writeResponse and writeStream', () => {
  it.each(variants)('%s: the plain body and the stream read back the same response', (_, response) => {
    const body = anthropicMessages.writeResponse(response, {})
    expect(anthropicMessages.normalizeResponse({ status: 200, headers: {}, body })).toEqual(response)
    const chunks = anthropicMessages.writeStream(response, {})
    expect(anthropicMessages.assembleStream(chunks)).toEqual({ response, incomplete: false })
    expect(anthropicMessages.assembleStream(parseSse(chunks.map(formatSse).join('')))).toEqual({
      response,
      incomplete: false,
    })
  })

  it('names every event in its event line, as the SDK needs', () => {
    for (const chunk of anthropicMessages.writeStream(full, {})) {
      expect(chunk.event).toBe((sseJson(chunk) as JsonObject).type)
      expect(chunk.atMs).toBe(0)
    }
  })

  it('sends tool input only as input_json_delta fragments, the first one empty', () => {
    const events = anthropicMessages.writeStream(full, {}).map((c) => sseJson(c) as JsonObject)
    const start = events.find(
      (e) => e.type === 'content_block_start' && (e.content_block as JsonObject).type === 'tool_use',
    )!
    expect(start.content_block).toEqual({
      type: 'tool_use',
      id: 'toolu_01A',
      name: 'issue_refund',
      input: {},
    })
    const fragments = events
      .filter(
        (e) => e.index === start.index && (e.delta as JsonObject | undefined)?.type === 'input_json_delta',
      )
      .map((e) => (e.delta as JsonObject).partial_json as string)
    expect(fragments[0]).toBe('')
    expect(fragments.length).toBeGreaterThan(2)
    expect(JSON.parse(fragments.join(''))).toEqual(full.toolCalls[0]!.args)
  })

  it('follows the API: message_start, ping after the first block start, message_delta, message_stop', () => {
    const names = anthropicMessages.writeStream(variants[1]![1], {}).map((c) => c.event)
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping'])
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop'])
  })

  it('sends an error finish as the error event a failing stream ends with', () => {
    const failing: NormalizedResponse = { ...full, toolCalls: [], finishReason: 'error' }
    const chunks = anthropicMessages.writeStream(failing, {})
    expect(chunks.at(-1)?.event).toBe('error')
    expect(anthropicMessages.assembleStream(chunks)).toEqual({ response: failing, incomplete: true })
  })

  it('takes the id from the options, the model from the request when the response names none', () => {
    const body = anthropicMessages.writeResponse(
      { ...full, model: null, requestId: null },
      {
        id: 'msg_scripted_3',
        request: { model: 'claude-haiku-4-5', system: [], messages: [], tools: [], params: {} },
      },
    ) as JsonObject
    expect(body).toMatchObject({
      id: 'msg_scripted_3',
      model: 'claude-haiku-4-5',
      type: 'message',
      role: 'assistant',
    })
  })
})

describe('anthropicMessages stream assembly', () => {
  const stream = anthropicMessages.writeStream(full, {})

  it('reads a stream that stopped before message_stop as incomplete, keeping what arrived', () => {
    const upToTool = stream.findIndex((c) => c.data.includes('"partial_json":"{\\"order_id'))
    const { response, incomplete } = anthropicMessages.assembleStream(stream.slice(0, upToTool + 1))
    expect(incomplete).toBe(true)
    expect(response.parts).toEqual(full.parts)
    expect(response.finishReason).toBeNull()
    expect(response.toolCalls).toEqual([
      { type: 'tool_call', id: 'toolu_01A', name: 'issue_refund', args: null, argsText: '{"order_id":"A17' },
    ])
    expect(response.usage).toEqual({ inputTokens: 1200, outputTokens: 1, cachedTokens: 1000 })
  })

  it('reads an event cut in the middle as incomplete, even after message_stop', () => {
    const cut = [...stream, { event: 'message_stop', data: '{"type":"mess', atMs: 9 }]
    expect(anthropicMessages.assembleStream(cut).incomplete).toBe(true)
  })

  it('reads nothing as an empty, incomplete response', () => {
    expect(anthropicMessages.assembleStream([])).toEqual({
      response: { model: null, requestId: null, parts: [], toolCalls: [], finishReason: null, usage: null },
      incomplete: true,
    })
  })

  it('takes a tool input a proxy sent whole in content_block_start', () => {
    const chunks = parseSse(
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}}\n\n' +
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    )
    expect(anthropicMessages.assembleStream(chunks).response.toolCalls).toEqual([
      { type: 'tool_call', id: 't1', name: 'f', args: { a: 1 } },
    ])
  })
})

describe('anthropicMessages.normalizeResponse', () => {
  it('is null for an error status', () => {
    const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
    expect(anthropicMessages.normalizeResponse({ status: 529, headers: {}, body })).toBeNull()
    expect(anthropicMessages.normalizeResponse({ status: 400, headers: {}, body, chunks: [] })).toBeNull()
  })

  it('takes the request id from the request-id header, for plain and streamed responses', () => {
    const headers = { 'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy' }
    const body = anthropicMessages.writeResponse(full, {})
    expect(anthropicMessages.normalizeResponse({ status: 200, headers, body })?.requestId).toBe(
      headers['request-id'],
    )
    const chunks = anthropicMessages.writeStream(full, {})
    expect(anthropicMessages.normalizeResponse({ status: 200, headers, body: null, chunks })).toEqual({
      ...full,
      requestId: headers['request-id'],
    })
  })

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, null],
  ])('maps stop_reason %s to %s', (stopReason, finish) => {
    const body = {
      id: 'msg_1',
      model: 'm',
      content: [],
      stop_reason: stopReason,
      usage: { input_tokens: 1, output_tokens: 1 },
    }
    expect(anthropicMessages.normalizeResponse({ status: 200, headers: {}, body })?.finishReason).toBe(finish)
  })
})

describe('anthropicMessages cache-write usage', () => {
  // Cache writes are billed above plain input, so they are counted apart as well as inside the input.
  const wireUsage = {
    input_tokens: 21,
    cache_creation_input_tokens: 1500,
    cache_read_input_tokens: 2048,
    output_tokens: 9,
  }
  const expected = { inputTokens: 3569, outputTokens: 9, cachedTokens: 2048, cacheWriteTokens: 1500 }

  it('reads cache_creation_input_tokens from a plain response', () => {
    const body = { id: 'msg_1', model: 'm', content: [], stop_reason: 'end_turn', usage: wireUsage }
    expect(anthropicMessages.normalizeResponse({ status: 200, headers: {}, body })?.usage).toEqual(expected)
  })

  it('reads cache_creation_input_tokens from message_start in a stream', () => {
    const events = [
      {
        type: 'message_start',
        message: { id: 'msg_1', model: 'm', content: [], usage: { ...wireUsage, output_tokens: 1 } },
      },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]
    const chunks = events.map((e) => ({ event: e.type, data: JSON.stringify(e), atMs: 0 }))
    expect(anthropicMessages.assembleStream(chunks).response.usage).toEqual(expected)
  })

  it('writes cache writes back apart from the uncached input, in bodies and streams', () => {
    const response: NormalizedResponse = { ...full, usage: expected }
    const body = anthropicMessages.writeResponse(response, {}) as JsonObject
    expect(body.usage).toEqual(wireUsage)
    expect(anthropicMessages.normalizeResponse({ status: 200, headers: {}, body })?.usage).toEqual(expected)
    expect(
      anthropicMessages.assembleStream(anthropicMessages.writeStream(response, {})).response.usage,
    ).toEqual(expected)
  })
})
