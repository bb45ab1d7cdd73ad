import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { WireRequest } from '../case/schema/step.ts'
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_SYSTEM,
  CONVERSATION_TOOLS,
} from './internal/test-conversation.ts'
import { OPENAI_RESPONSES_CONVERSATION } from './internal/test-conversation-openai.ts'
import { openaiResponses } from './openai-responses.ts'
import { findAdapter } from './registry.ts'
import { requestHash } from './request-hash.ts'

const URL_ = 'https://api.openai.com/v1/responses'

function wire(body: JsonObject, headers: Record<string, string> = {}): WireRequest {
  return { method: 'POST', url: URL_, headers, body }
}

describe('openaiResponses.matches', () => {
  it.each([
    'https://api.openai.com/v1/responses',
    'http://localhost:4000/v1/responses/',
    'https://openrouter.ai/api/v1/responses',
    'https://acme.openai.azure.com/openai/v1/responses?api-version=preview',
  ])('claims POST %s, and the registry routes it here', (url) => {
    expect(openaiResponses.matches({ method: 'POST', url })).toBe(true)
    expect(findAdapter({ method: 'POST', url })?.id).toBe('openai-responses')
  })

  it.each([
    ['GET', 'https://api.openai.com/v1/responses/resp_123'],
    ['POST', 'https://api.openai.com/v1/responses/resp_123'],
    ['POST', 'https://api.openai.com/v1/responses/input_tokens'],
    ['POST', 'https://api.openai.com/v1/responses/resp_123/cancel'],
    ['GET', 'https://api.openai.com/v1/responses'],
    ['GET', 'https://api.openai.com/v1/models'],
    ['POST', 'https://api.openai.com/v1/embeddings'],
    ['POST', 'https://api.openai.com/v1/chat/completions'],
  ])('leaves %s %s alone', (method, url) => {
    expect(openaiResponses.matches({ method, url })).toBe(false)
  })
})

describe('openaiResponses.normalizeRequest', () => {
  it('reads the shared conversation as the shared normalized values', () => {
    const n = openaiResponses.normalizeRequest(OPENAI_RESPONSES_CONVERSATION)
    expect(n.system).toStrictEqual(CONVERSATION_SYSTEM)
    expect(n.messages).toStrictEqual(CONVERSATION_MESSAGES)
    expect(n.tools).toStrictEqual(CONVERSATION_TOOLS)
    expect(n.params).toStrictEqual({ extra: { store: false } })
  })

  it('gathers instructions and system items, merges an assistant turn, reads tool output parts', () => {
    const n = openaiResponses.normalizeRequest(
      wire({
        model: 'gpt-5',
        instructions: 'Be brief.',
        input: [
          { role: 'user', content: 'Hi' },
          {
            type: 'reasoning',
            id: 'rs_1',
            summary: [],
            content: [{ type: 'reasoning_text', text: 'think' }],
          },
          { type: 'item_reference', id: 'ws_1' },
          { type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
          { type: 'function_call', call_id: 'c1', name: 'snap', arguments: '{}' },
          {
            type: 'function_call_output',
            call_id: 'c1',
            output: [
              { type: 'input_text', text: 'a photo' },
              { type: 'input_image', image_url: 'https://x.test/p.webp', detail: 'low' },
            ],
          },
          { role: 'developer', content: [{ type: 'input_text', text: 'Now answer.' }] },
        ],
        text: { format: { type: 'json_object' }, verbosity: 'low' },
      }),
    )
    expect(n.system).toStrictEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Now answer.' },
    ])
    expect(n.messages).toStrictEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'think' },
          { type: 'text', text: 'No.' },
          { type: 'tool_call', id: 'c1', name: 'snap', args: {} },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool_result', id: 'c1', name: 'snap', content: 'a photo', isError: false },
          { type: 'media', mediaType: 'image/webp', bytes: null, ref: 'https://x.test/p.webp' },
        ],
      },
    ])
    expect(n.params).toStrictEqual({
      responseFormat: { type: 'json_object' },
      extra: { text: { verbosity: 'low' } },
    })
  })
})

describe('requestHash of Responses requests', () => {
  const hash = (w: WireRequest) =>
    requestHash({
      method: w.method,
      url: w.url,
      headers: w.headers,
      normalized: openaiResponses.normalizeRequest(w),
    })
  const base = OPENAI_RESPONSES_CONVERSATION
  const withBody = (patch: JsonObject, headers = base.headers): WireRequest => ({
    ...base,
    headers,
    body: { ...(base.body as JsonObject), ...patch },
  })

  it('ignores volatile fields and SDK headers, and changes with the conversation', () => {
    const h = hash(base)
    expect(
      hash(withBody({ user: 'u', metadata: { a: 'b' }, prompt_cache_key: 'k', safety_identifier: 's' })),
    ).toBe(h)
    expect(
      hash(withBody({}, { 'x-stainless-os': 'MacOS', 'idempotency-key': 'stainless-node-retry-1' })),
    ).toBe(h)
    const input = [...((base.body as JsonObject).input as JsonObject[])]
    input[5] = { role: 'user', content: 'Thanks again!' }
    expect(hash(withBody({ input }))).not.toBe(h)
    expect(hash(withBody({ instructions: 'Refund anything.' }))).not.toBe(h)
    expect(hash(withBody({ reasoning: { effort: 'high' } }))).not.toBe(h)
  })
})
