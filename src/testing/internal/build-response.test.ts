import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { buildResponse, CUT_STREAM_TEXT, responseId } from './build-response.ts'

const request: NormalizedRequest = {
  model: 'gpt-4o-mini',
  system: [{ type: 'text', text: 'x'.repeat(40) }],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'y'.repeat(20) }] }],
  tools: [],
  params: {},
}
const ctx = { index: 3, api: 'openai-chat' as const, request, defaultModel: 'fallback-model' }

describe('buildResponse', () => {
  it('serves text with finish reason stop, the requested model and a request id from the call number', () => {
    const response = buildResponse({ text: 'Hello there' }, ctx)
    expect(response).toEqual({
      model: 'gpt-4o-mini',
      requestId: 'req_scripted_3',
      parts: [{ type: 'text', text: 'Hello there' }],
      toolCalls: [],
      finishReason: 'stop',
      // 60 request characters → 15 tokens; 11 answer characters → 3 tokens.
      usage: { inputTokens: 15, outputTokens: 3 },
    })
  })

  it('defaults to tool_calls with deterministic ids when the turn calls tools, keeping given ids', () => {
    const response = buildResponse(
      {
        toolCalls: [
          { name: 'get_order', args: { order_id: 'A17' } },
          { name: 'refund', args: {}, id: 'mine' },
        ],
      },
      ctx,
    )
    expect(response.finishReason).toBe('tool_calls')
    expect(response.toolCalls.map((c) => c.id)).toEqual(['call_scripted_3_0', 'mine'])
    const anthropic = buildResponse(
      { toolCalls: [{ name: 'get_order', args: {} }] },
      { ...ctx, api: 'anthropic-messages' },
    )
    expect(anthropic.toolCalls[0]?.id).toBe('toolu_scripted_3_0')
    // Same input, same output: ids and usage never depend on time or chance.
    expect(buildResponse({ toolCalls: [{ name: 'x', args: [1] }] }, ctx)).toEqual(
      buildResponse({ toolCalls: [{ name: 'x', args: [1] }] }, ctx),
    )
  })

  it('puts reasoning before text and counts it as reasoning tokens', () => {
    const response = buildResponse({ reasoning: 'r'.repeat(8), text: 'ok' }, ctx)
    expect(response.parts.map((p) => p.type)).toEqual(['reasoning', 'text'])
    expect(response.usage).toEqual({ inputTokens: 15, outputTokens: 3, reasoningTokens: 2 })
  })

  it('lets the turn set finish reason, model and any part of usage', () => {
    const response = buildResponse(
      {
        text: 'cut',
        finishReason: 'length',
        model: 'gpt-4o-2024-08-06',
        usage: { outputTokens: 99, cachedTokens: 4 },
      },
      ctx,
    )
    expect(response.finishReason).toBe('length')
    expect(response.model).toBe('gpt-4o-2024-08-06')
    expect(response.usage).toEqual({ inputTokens: 15, outputTokens: 99, cachedTokens: 4 })
  })

  it('caps the estimated reasoning tokens at given output tokens, which include them', () => {
    const response = buildResponse(
      { reasoning: 'r'.repeat(80), text: 'ok', usage: { outputTokens: 12 } },
      ctx,
    )
    expect(response.usage).toEqual({ inputTokens: 15, outputTokens: 12, reasoningTokens: 12 })
    const given = buildResponse(
      { reasoning: 'r'.repeat(80), usage: { outputTokens: 12, reasoningTokens: 30 } },
      ctx,
    )
    expect(given.usage?.reasoningTokens).toBe(30)
  })

  it('uses the response id as Gemini’s request id, which has no request-id header', () => {
    expect(buildResponse({}, { ...ctx, api: 'gemini' }).requestId).toBe(responseId('gemini', 3))
  })

  it('falls back to the default model when the request names none', () => {
    expect(buildResponse({}, { ...ctx, request: { ...request, model: '' } }).model).toBe('fallback-model')
  })

  it('gives an empty cut_stream turn something to cut, and no other fault', () => {
    expect(buildResponse({ fault: { type: 'cut_stream', afterEvents: 1 } }, ctx).parts).toEqual([
      { type: 'text', text: CUT_STREAM_TEXT },
    ])
    expect(buildResponse({ fault: { type: 'malformed_json' } }, ctx).parts).toEqual([])
  })
})

describe('responseId', () => {
  it('follows each API’s id prefix', () => {
    expect(responseId('openai-chat', 1)).toMatch(/^chatcmpl-/)
    expect(responseId('openai-responses', 1)).toMatch(/^resp_/)
    expect(responseId('anthropic-messages', 1)).toMatch(/^msg_/)
    expect(responseId('gemini', 1)).not.toBe(responseId('gemini', 2))
  })
})
