import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { NormalizedResponse } from '../case/schema/normalized.ts'
import { gemini } from './gemini.ts'
import { formatSse, parseSse, sseJson } from './sse.ts'

const full: NormalizedResponse = {
  model: 'gemini-2.5-pro',
  requestId: 'aBcDeFgHiJ',
  parts: [
    { type: 'reasoning', text: '**Checking the order**\n\nThe total is what matters here. 🧾' },
    { type: 'text', text: 'Refunding $49 — the order total. ✅ Done.' },
  ],
  toolCalls: [
    { type: 'tool_call', id: 'issue_refund_0', name: 'issue_refund', args: { order_id: 'A17', amount: 49 } },
    { type: 'tool_call', id: 'fc_7', name: 'notify', args: {} },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 1200, outputTokens: 310, cachedTokens: 1000, reasoningTokens: 120 },
}

const variants: Array<[string, NormalizedResponse]> = [
  ['everything', full],
  ['text only', { ...full, parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop' }],
  [
    'a safety stop',
    {
      ...full,
      parts: [],
      toolCalls: [],
      finishReason: 'content_filter',
      usage: { inputTokens: 9, outputTokens: 0 },
    },
  ],
  [
    'a length cut',
    { ...full, parts: [{ type: 'text', text: 'Once upon' }], toolCalls: [], finishReason: 'length' },
  ],
  ['an error', { ...full, toolCalls: [], finishReason: 'error', usage: null }],
]

describe('gemini.writeResponse and writeStream', () => {
  it.each(variants)('%s: the plain body and the stream read back the same response', (_, response) => {
    const body = gemini.writeResponse(response, {})
    expect(gemini.normalizeResponse({ status: 200, headers: {}, body })).toEqual(response)
    const chunks = gemini.writeStream(response, {})
    expect(gemini.assembleStream(chunks)).toEqual({ response, incomplete: false })
    expect(gemini.assembleStream(parseSse(chunks.map(formatSse).join('')))).toEqual({
      response,
      incomplete: false,
    })
  })

  it('frames each chunk as a bare data line, the finish reason and usage on the last one only', () => {
    const chunks = gemini.writeStream(full, {})
    expect(chunks.length).toBeGreaterThan(4)
    expect(chunks.every((c) => c.event === undefined)).toBe(true)
    const bodies = chunks.map((c) => sseJson(c) as JsonObject)
    const candidates = bodies.map((b) => (b.candidates as JsonObject[])[0]!)
    expect(candidates.map((c) => c.finishReason ?? null)).toEqual([
      ...Array(chunks.length - 1).fill(null),
      'STOP',
    ])
    expect(bodies.map((b) => b.usageMetadata !== undefined)).toEqual([
      ...Array(chunks.length - 1).fill(false),
      true,
    ])
    expect(bodies.at(-1)?.usageMetadata).toEqual({
      promptTokenCount: 1200,
      candidatesTokenCount: 190,
      thoughtsTokenCount: 120,
      cachedContentTokenCount: 1000,
      totalTokenCount: 1510,
    })
  })

  it('sends each function call whole, and an id only when the model gave one', () => {
    const calls = gemini
      .writeStream(full, {})
      .flatMap((c) =>
        ((sseJson(c) as JsonObject).candidates as JsonObject[]).flatMap(
          (cand) => (cand.content as JsonObject | undefined)?.parts ?? [],
        ),
      )
      .filter((p) => (p as JsonObject).functionCall !== undefined)
    expect(calls).toEqual([
      { functionCall: { name: 'issue_refund', args: { order_id: 'A17', amount: 49 } } },
      { functionCall: { id: 'fc_7', name: 'notify', args: {} } },
    ])
  })

  it('takes the id from the options, the model from the request when the response names none', () => {
    const body = gemini.writeResponse(
      { ...full, model: null, requestId: null },
      {
        id: 'scripted-3',
        request: { model: 'gemini-2.5-flash', system: [], messages: [], tools: [], params: {} },
      },
    )
    expect(body).toMatchObject({ responseId: 'scripted-3', modelVersion: 'gemini-2.5-flash' })
  })
})

describe('gemini stream assembly', () => {
  const stream = gemini.writeStream(full, {})

  it('reads a stream without a finish reason as incomplete, keeping what arrived', () => {
    const { response, incomplete } = gemini.assembleStream(stream.slice(0, -1))
    expect(incomplete).toBe(true)
    expect(response).toMatchObject({
      finishReason: null,
      usage: null,
      parts: full.parts,
      toolCalls: [full.toolCalls[0]],
    })
  })

  it('reads an event cut in the middle as incomplete', () => {
    const last = stream.at(-1)!
    const cut = [...stream.slice(0, -1), { ...last, data: last.data.slice(0, 40) }]
    expect(gemini.assembleStream(cut)).toMatchObject({ incomplete: true, response: { finishReason: null } })
  })

  it('reads an error payload as an incomplete error finish', () => {
    const error = {
      data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}',
      atMs: 5,
    }
    const { response, incomplete } = gemini.assembleStream([stream[0]!, error])
    expect(incomplete).toBe(true)
    expect(response.finishReason).toBe('error')
    expect(response.parts).toEqual([{ type: 'reasoning', text: '**Checking the o' }])
  })

  it('joins text cut at any point, and thoughts apart from text', () => {
    const chunks = parseSse(
      'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Plan","thought":true}]}}]}\n\n' +
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"ning.","thought":true},{"text":"Hel"}]}}]}\n\n' +
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"finishReason":"STOP"}]}\n\n',
    )
    expect(gemini.assembleStream(chunks).response.parts).toEqual([
      { type: 'reasoning', text: 'Planning.' },
      { type: 'text', text: 'Hello' },
    ])
  })
})

describe('gemini.normalizeResponse', () => {
  it('is null for an error status', () => {
    const body = { error: { code: 429, message: 'Resource exhausted', status: 'RESOURCE_EXHAUSTED' } }
    expect(gemini.normalizeResponse({ status: 429, headers: {}, body })).toBeNull()
  })

  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'error'],
    ['OTHER', false, 'error'],
  ])('maps finishReason %s (function calls: %s) to %s', (reason, withCall, finish) => {
    const parts = withCall ? [{ functionCall: { name: 'f', args: {} } }] : [{ text: 'x' }]
    const body = { candidates: [{ content: { role: 'model', parts }, finishReason: reason }] }
    expect(gemini.normalizeResponse({ status: 200, headers: {}, body })?.finishReason).toBe(finish)
  })

  it('counts the tool-use prompt as input, so input and output add up to the total', () => {
    const body = {
      candidates: [],
      usageMetadata: {
        promptTokenCount: 100,
        toolUsePromptTokenCount: 50,
        candidatesTokenCount: 7,
        thoughtsTokenCount: 3,
        totalTokenCount: 160,
      },
    }
    expect(gemini.normalizeResponse({ status: 200, headers: {}, body })?.usage).toEqual({
      inputTokens: 150,
      outputTokens: 10,
      reasoningTokens: 3,
    })
  })
})
