import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { gemini } from './gemini.ts'
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_SYSTEM,
  CONVERSATION_TOOLS,
} from './internal/test-conversation.ts'
import { GEMINI_CONVERSATION } from './internal/test-conversation-anthropic-gemini.ts'
import { describeGolden } from './internal/test-golden-anthropic-gemini.ts'
import { requestHash } from './request-hash.ts'

const post = (url: string) => ({ method: 'POST', url })
const conversationBody = GEMINI_CONVERSATION.body as JsonObject

function at(url: string, body: JsonObject = conversationBody): WireRequest {
  return { ...GEMINI_CONVERSATION, url, body }
}

describe('gemini.matches', () => {
  it.each([
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    'https://generativelanguage.googleapis.com/v1/models/gemini-2.5-flash:generateContent?key=AIzaX',
    'https://generativelanguage.googleapis.com/v1beta/tunedModels/refund-bot-7:generateContent',
    'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash-001:generateContent',
    'https://gateway.ai.cloudflare.com/v1/acct/gw/google-ai-studio/v1beta/models/gemini-2.5-pro:generateContent',
    'http://127.0.0.1:4010/models/gemini-2.5-flash:streamGenerateContent',
  ])('takes POST %s', (url) => {
    expect(gemini.matches(post(url))).toBe(true)
  })

  it.each([
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:embedContent',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:batchGenerateContent',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash',
    'https://generativelanguage.googleapis.com/v1beta/models',
    'https://api.anthropic.com/v1/messages',
  ])('leaves POST %s to others', (url) => {
    expect(gemini.matches(post(url))).toBe(false)
  })

  it('takes only POST', () => {
    const url = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'
    expect(gemini.matches({ method: 'GET', url })).toBe(false)
  })

  it('streams exactly on :streamGenerateContent, and reads the model from the path', () => {
    const streamed = at('https://h/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    expect(gemini.isStreaming(streamed)).toBe(true)
    expect(gemini.isStreaming(GEMINI_CONVERSATION)).toBe(false)
    expect(gemini.normalizeRequest(streamed)).toMatchObject({
      model: 'gemini-2.5-flash',
      params: { stream: true },
    })
    expect(gemini.normalizeRequest(at('https://h/v1beta/tunedModels/my%20bot:generateContent')).model).toBe(
      'tunedModels/my bot',
    )
  })
})

describe('the shared conversation', () => {
  it('normalizes to the shared system, messages and tools', () => {
    const normalized = gemini.normalizeRequest(GEMINI_CONVERSATION)
    expect(normalized.system).toEqual(CONVERSATION_SYSTEM)
    expect(normalized.messages).toEqual(CONVERSATION_MESSAGES)
    expect(normalized.tools).toEqual(CONVERSATION_TOOLS)
    expect(normalized).toMatchObject({ model: 'gemini-2.5-flash', params: {} })
  })

  it('is written back byte for byte', () => {
    const written = gemini.writeRequest(gemini.normalizeRequest(GEMINI_CONVERSATION), GEMINI_CONVERSATION)
    expect(JSON.stringify(written)).toBe(JSON.stringify(GEMINI_CONVERSATION))
  })
})

describe('requestHash of Gemini requests', () => {
  const hash = (wire: WireRequest) => requestHash({ ...wire, normalized: gemini.normalizeRequest(wire) })
  const url = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'

  it('ignores the API key, in the query or a header, and the SDK headers', () => {
    const other = {
      ...at(`${url}?key=AIzaOther`),
      headers: { 'x-goog-api-key': 'AIzaY', 'user-agent': 'google-genai-sdk/2.0.0' },
    }
    expect(hash(other)).toBe(hash(at(url)))
  })

  it('changes with the model and the contents', () => {
    expect(hash(at(url.replace('flash', 'pro')))).not.toBe(hash(at(url)))
    const contents = [...(conversationBody.contents as JsonObject[])]
    contents[4] = { role: 'user', parts: [{ text: 'Thanks a lot!' }] }
    expect(hash(at(url, { ...conversationBody, contents }))).not.toBe(hash(at(url)))
  })
})

describe('request normalization', () => {
  const calls = (body: JsonObject) => gemini.normalizeRequest(at(GEMINI_CONVERSATION.url, body)).messages

  it('gives calls without an id the id of their name and place, and answers find them by name', () => {
    const messages = calls({
      contents: [
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'get_order', args: { id: 'A1' } } },
            { functionCall: { name: 'get_order', args: { id: 'A2' } } },
            { functionCall: { id: 'fc_given', name: 'refund', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'refund', id: 'fc_given', response: { output: 'done' } } },
            { functionResponse: { name: 'get_order', response: { total: 1 } } },
            { functionResponse: { name: 'get_order', response: { total: 2 } } },
            { text: 'And now?' },
          ],
        },
      ],
    })
    expect(messages[0]!.parts.map((p) => (p.type === 'tool_call' ? p.id : ''))).toEqual([
      'get_order_0',
      'get_order_1',
      'fc_given',
    ])
    expect(
      messages.slice(1).map((m) => [m.role, m.parts[0]!.type === 'tool_result' ? m.parts[0]!.id : 'text']),
    ).toEqual([
      ['tool', 'fc_given'],
      ['tool', 'get_order_0'],
      ['tool', 'get_order_1'],
      ['user', 'text'],
    ])
  })

  it('reads thoughts as reasoning and keeps code execution parts out', () => {
    const messages = calls({
      contents: [
        {
          role: 'model',
          parts: [
            { text: 'Let me compute.', thought: true, thoughtSignature: 'c2ln' },
            { executableCode: { language: 'PYTHON', code: 'print(6*7)' } },
            { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '42\n' } },
            { text: '42' },
          ],
        },
      ],
    })
    expect(messages).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Let me compute.' },
          { type: 'text', text: '42' },
        ],
      },
    ])
  })

  it.each([
    [{ mode: 'AUTO' }, 'auto', undefined],
    [{ mode: 'NONE' }, 'none', undefined],
    [{ mode: 'ANY' }, 'required', undefined],
    [{ mode: 'ANY', allowedFunctionNames: ['a'] }, { name: 'a' }, undefined],
    [
      { mode: 'ANY', allowedFunctionNames: ['a', 'b'] },
      undefined,
      { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'b'] } },
    ],
  ])('reads functionCallingConfig %j as toolChoice %j', (fcc, choice, left) => {
    const params = gemini.normalizeRequest(
      at(GEMINI_CONVERSATION.url, { ...conversationBody, toolConfig: { functionCallingConfig: fcc } }),
    ).params
    expect(params.toolChoice).toEqual(choice)
    expect(params.extra?.toolConfig).toEqual(left)
  })
})

describeGolden(gemini, 'gemini', {
  // A Gemini stream is complete once a chunk gives a finish reason: a response without one reads as cut.
  writtenStreamIncomplete: (response) => response.finishReason === null,
  plainCarries: () => true,
})
