import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { gemini } from './gemini.ts'

/** A request with what writeRequest must keep: a thought signature, Google Search, snake_case, a key. */
const original: WireRequest = {
  method: 'POST',
  url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:generateContent?key=AIzaX',
  headers: { 'content-type': 'application/json' },
  body: {
    system_instruction: { parts: [{ text: 'You are a refund assistant.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'Refund A17' }] },
      {
        role: 'model',
        parts: [{ functionCall: { name: 'get_order', args: { id: 'A17' } }, thoughtSignature: 'c2lnLTE=' }],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'get_order', response: { total: 49 } } }] },
    ],
    tools: [
      {
        functionDeclarations: [
          { name: 'get_order', parametersJsonSchema: { type: 'object' }, behavior: 'BLOCKING' },
        ],
      },
      { googleSearch: {} },
      {
        functionDeclarations: [
          { name: 'refund', description: 'Refund an order', parameters: { type: 'OBJECT' } },
        ],
      },
    ],
    generationConfig: { temperature: 0.5, topK: 20, thinkingConfig: { thinkingLevel: 'low' } },
    safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
  },
}
const body = original.body as JsonObject
const normalized = gemini.normalizeRequest(original)

function rewrite(change: (n: NormalizedRequest) => NormalizedRequest): WireRequest {
  const written = gemini.writeRequest(change(structuredClone(normalized)), original)
  expect(written.headers).toEqual(original.headers)
  return written
}

describe('gemini.writeRequest', () => {
  it('gives back an unchanged request byte for byte', () => {
    expect(JSON.stringify(gemini.writeRequest(normalized, original))).toBe(JSON.stringify(original))
  })

  it('moves the model and the streaming switch into the URL, keeping the key', () => {
    const streamed = rewrite((n) => ({
      ...n,
      model: 'gemini-2.5-flash',
      params: { ...n.params, stream: true },
    }))
    expect(streamed.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?key=AIzaX&alt=sse',
    )
    const back = gemini.writeRequest(
      { ...gemini.normalizeRequest(streamed), params: normalized.params },
      streamed,
    )
    expect(back.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=AIzaX',
    )
  })

  it('keeps the thought signature of an unchanged call when its answer changes', () => {
    const out = rewrite((n) => {
      const result = n.messages[2]!.parts[0]!
      if (result.type === 'tool_result') result.content = 'order not found'
      return n
    }).body as JsonObject
    const contents = out.contents as JsonObject[]
    expect(contents.slice(0, 2)).toEqual((body.contents as JsonObject[]).slice(0, 2))
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'get_order', response: { output: 'order not found' } } }],
    })
  })

  it('writes a new call with its id, and a made-up id never', () => {
    const out = rewrite((n) => {
      n.messages.push({
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'refund_0', name: 'refund', args: { id: 'A17' } },
          { type: 'tool_call', id: 'call_xyz', name: 'refund', args: { id: 'A18' } },
        ],
      })
      n.messages.push({
        role: 'tool',
        parts: [
          { type: 'tool_result', id: 'refund_0', name: 'refund', content: '{"ok":true}', isError: false },
        ],
      })
      n.messages.push({
        role: 'tool',
        parts: [{ type: 'tool_result', id: 'call_xyz', name: 'refund', content: 'denied', isError: true }],
      })
      return n
    }).body as JsonObject
    expect((out.contents as JsonObject[]).slice(3)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'refund', args: { id: 'A17' } } },
          { functionCall: { id: 'call_xyz', name: 'refund', args: { id: 'A18' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'refund', response: { ok: true } } },
          { functionResponse: { id: 'call_xyz', name: 'refund', response: { error: 'denied' } } },
        ],
      },
    ])
  })

  it('keeps the snake_case key, the declaration schema key, and Google-run tools in place', () => {
    const out = rewrite((n) => ({
      ...n,
      system: [{ type: 'text', text: 'You are terse.' }],
      tools: [
        { ...n.tools[0]!, description: 'Look up an order' },
        { name: 'escalate', parameters: { type: 'object' } },
      ],
    })).body as JsonObject
    expect(out.system_instruction).toEqual({ parts: [{ text: 'You are terse.' }] })
    expect(out.systemInstruction).toBeUndefined()
    expect(out.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_order',
            parametersJsonSchema: { type: 'object' },
            behavior: 'BLOCKING',
            description: 'Look up an order',
          },
        ],
      },
      { googleSearch: {} },
      { functionDeclarations: [{ name: 'escalate', parameters: { type: 'object' } }] },
    ])
  })

  it('merges sampling params into what was left of generationConfig, and the tool choice into toolConfig', () => {
    const out = rewrite((n) => ({
      ...n,
      params: {
        ...n.params,
        temperature: 0,
        maxTokens: 256,
        stop: ['END'],
        seed: 7,
        responseFormat: { responseMimeType: 'application/json' },
        toolChoice: { name: 'refund' },
      },
    })).body as JsonObject
    expect(out.generationConfig).toEqual({
      temperature: 0,
      topK: 20,
      thinkingConfig: { thinkingLevel: 'low' },
      maxOutputTokens: 256,
      stopSequences: ['END'],
      seed: 7,
      responseMimeType: 'application/json',
    })
    expect(out.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['refund'] },
    })
    expect(out.safetySettings).toEqual(body.safetySettings)
  })

  it('round-trips a request normalized from another API', () => {
    const foreign: NormalizedRequest = {
      model: 'gemini-2.5-flash',
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Hi' },
            { type: 'media', mediaType: 'image/png', bytes: null, ref: 'https://x/a.png' },
          ],
        },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'toolu_1', name: 'f', args: { a: 1 } }] },
        {
          role: 'tool',
          parts: [{ type: 'tool_result', id: 'toolu_1', name: 'f', content: '{"ok":1}', isError: false }],
        },
      ],
      tools: [{ name: 'f', description: 'F', parameters: { type: 'object' } }],
      params: { temperature: 0.3, toolChoice: 'auto' },
    }
    const wire = gemini.writeRequest(foreign, {
      method: 'POST',
      url: 'https://h/v1beta/models/x:generateContent',
      headers: {},
      body: null,
    })
    expect(wire.url).toBe('https://h/v1beta/models/gemini-2.5-flash:generateContent')
    expect(gemini.normalizeRequest(wire)).toEqual(foreign)
  })
})
