import { type Content, FinishReason, type FunctionDeclaration, GoogleGenAI } from '@google/genai'
import { describe, expect, it } from 'vitest'
import type { ScriptedTurn } from '../src/testing/index.ts'
import {
  FINAL_TEXT,
  GET_ORDER,
  ORDER,
  ORDER_PARAMS,
  QUESTION,
  SYSTEM,
  USER_MESSAGE,
} from './helpers/refund.ts'
import { once, servedResponse, useScriptedProvider } from './helpers/scripted-harness.ts'
import { capturingFetch, normalizedOf, plainWire, readResponse, streamWire } from './helpers/sdk-wire.ts'

/**
 * @google/genai against the scripted provider over loopback HTTP: what the SDK returns is the scripted
 * turn, and what it sent normalizes, through the Gemini adapter, to the conversation it was given.
 */

const server = useScriptedProvider()
const MODEL = 'gemini-2.5-flash'
const DECLARATIONS: FunctionDeclaration[] = [
  { name: GET_ORDER.name, description: GET_ORDER.description!, parametersJsonSchema: ORDER_PARAMS },
]
const LOOKUP: ScriptedTurn = {
  text: 'Let me look that up.',
  toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }],
  usage: { inputTokens: 40, outputTokens: 12 },
}
const CONFIG = {
  systemInstruction: SYSTEM,
  tools: [{ functionDeclarations: DECLARATIONS }],
  temperature: 0.2,
}

function client(url = server.url, fetch?: typeof globalThis.fetch): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: 'test-key',
    httpOptions: { baseUrl: url, timeout: 5_000, ...(fetch ? { fetch } : {}) },
  })
}

const question = (): Content[] => [{ role: 'user', parts: [{ text: QUESTION }] }]

describe('gemini generateContent', () => {
  it('plain: text, function call, finish reason and usage as scripted; the request normalizes', async () => {
    server.script(LOOKUP)
    const response = await client().models.generateContent({
      model: MODEL,
      contents: question(),
      config: CONFIG,
    })

    expect(response.text).toBe('Let me look that up.')
    expect(response.functionCalls?.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'get_order', args: { order_id: 'A17' } },
    ])
    expect(response.candidates?.[0]?.finishReason).toBe(FinishReason.STOP)
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 40,
      candidatesTokenCount: 12,
      totalTokenCount: 52,
    })
    const [call] = server.calls()
    expect(call?.api).toBe('gemini')
    expect(call?.path).toContain(`/models/${MODEL}:generateContent`)
    expect(normalizedOf(server.provider, call!)).toEqual({
      model: MODEL,
      system: [{ type: 'text', text: SYSTEM }],
      messages: [USER_MESSAGE],
      tools: [GET_ORDER],
      params: { temperature: 0.2 },
    })
  })

  it('the functionResponse of the next turn normalizes to a tool message answering the call', async () => {
    server.script(LOOKUP, { text: FINAL_TEXT })
    const genai = client()
    const contents = question()
    const first = await genai.models.generateContent({ model: MODEL, contents, config: CONFIG })
    const modelTurn = first.candidates?.[0]?.content
    expect(modelTurn?.role).toBe('model')
    const fc = first.functionCalls?.[0]
    contents.push(modelTurn!, {
      role: 'user',
      parts: [{ functionResponse: { ...(fc?.id ? { id: fc.id } : {}), name: 'get_order', response: ORDER } }],
    })
    const second = await genai.models.generateContent({ model: MODEL, contents, config: CONFIG })
    expect(second.text).toBe(FINAL_TEXT)

    const [, assistant, tool, ...rest] = normalizedOf(server.provider, server.calls()[1]!).messages
    expect(rest).toEqual([])
    expect(assistant).toEqual({
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_call', id: expect.any(String), name: 'get_order', args: { order_id: 'A17' } },
      ],
    })
    const callId = assistant?.parts[1]?.type === 'tool_call' ? assistant.parts[1].id : undefined
    expect(tool).toEqual({
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          id: callId,
          name: 'get_order',
          content: JSON.stringify(ORDER),
          isError: false,
        },
      ],
    })
  })

  it('stream: text arrives in several chunks; function call, finish reason and usage as scripted', async () => {
    server.script({ ...LOOKUP, chunkSize: 4 })
    const stream = await client().models.generateContentStream({
      model: MODEL,
      contents: question(),
      config: CONFIG,
    })
    let text = ''
    let chunks = 0
    const calls: unknown[] = []
    let finish: string | undefined
    let usage: unknown
    for await (const chunk of stream) {
      chunks++
      text += chunk.text ?? ''
      calls.push(...(chunk.functionCalls ?? []).map(({ name, args }) => ({ name, args })))
      finish = chunk.candidates?.[0]?.finishReason ?? finish
      usage = chunk.usageMetadata ?? usage
    }
    expect(chunks).toBeGreaterThan(3)
    expect(text).toBe('Let me look that up.')
    expect(calls).toEqual([{ name: 'get_order', args: { order_id: 'A17' } }])
    expect(finish).toBe(FinishReason.STOP)
    expect(usage).toMatchObject({ promptTokenCount: 40, candidatesTokenCount: 12 })
    const [call] = server.calls()
    expect(call?.path).toContain(`/models/${MODEL}:streamGenerateContent?alt=sse`)
    const request = normalizedOf(server.provider, call!)
    expect([request.model, request.tools, request.messages]).toEqual([MODEL, [GET_ORDER], [USER_MESSAGE]])
  })

  it('a stream normalizes to the same response as its plain twin', async () => {
    const { fromPlain, fromStream } = await twins(REASONING_LOOKUP)
    expect(fromStream).toEqual(fromPlain)
    expect(fromPlain.parts.map((p) => p.type)).toEqual(['reasoning', 'text'])
    expect(fromPlain.toolCalls.map((c) => [c.name, c.args])).toEqual([['get_order', { order_id: 'A17' }]])
  })

  it('what the SDK received reads back as the response the provider says it served', async () => {
    const { fromPlain, served } = await twins(REASONING_LOOKUP)
    expect(fromPlain).toEqual(served)
  })
})

const REASONING_LOOKUP: ScriptedTurn = {
  ...LOOKUP,
  reasoning: 'The user wants a refund; look the order up first.',
}

/** The same turn asked plain and streamed, each from a fresh provider; both read back by the adapter. */
async function twins(turn: ScriptedTurn) {
  const ask = (stream: boolean) => async (url: string) => {
    const capture = capturingFetch()
    const genai = client(url, capture.fetch)
    const params = { model: MODEL, contents: question(), config: CONFIG }
    if (stream) for await (const _ of await genai.models.generateContentStream(params));
    else await genai.models.generateContent(params)
    return capture.responses[0]!
  }
  const plain = await once(turn, ask(false))
  const streamed = await once(turn, ask(true))
  expect(streamed.value.headers['content-type']).toMatch(/^text\/event-stream/)
  return {
    fromPlain: readResponse(plain.value.url, await plainWire(plain.value)),
    fromStream: readResponse(streamed.value.url, await streamWire(streamed.value)),
    served: servedResponse(plain.answer),
  }
}
