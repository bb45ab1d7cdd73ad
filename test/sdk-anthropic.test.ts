import Anthropic from '@anthropic-ai/sdk'
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages'
import { describe, expect, it } from 'vitest'
import type { ScriptedTurn } from '../src/testing/index.ts'
import {
  FINAL_TEXT,
  GET_ORDER,
  ORDER_JSON,
  ORDER_PARAMS,
  QUESTION,
  SYSTEM,
  toolCallMessage,
  toolResultMessage,
  USER_MESSAGE,
} from './helpers/refund.ts'
import { once, servedResponse, useScriptedProvider } from './helpers/scripted-harness.ts'
import { capturingFetch, normalizedOf, plainWire, readResponse, streamWire } from './helpers/sdk-wire.ts'

/**
 * The Anthropic SDK (v1) against the scripted provider over loopback HTTP: what the SDK returns is the
 * scripted turn, and what it sent normalizes, through the adapter, to the conversation it was given.
 */

const server = useScriptedProvider()
const MODEL = 'claude-sonnet-4-6'
const TOOLS: Tool[] = [
  {
    name: GET_ORDER.name,
    description: GET_ORDER.description!,
    input_schema: { ...ORDER_PARAMS, type: 'object' },
  },
]
const CALL = { name: 'get_order', args: { order_id: 'A17' }, id: 'toolu_A17' }
const LOOKUP: ScriptedTurn = {
  text: 'Let me look that up.',
  toolCalls: [CALL],
  usage: { inputTokens: 40, outputTokens: 12 },
}
const BASE = { model: MODEL, max_tokens: 1024, system: SYSTEM }
// The v1 types no longer list `temperature`; the API still takes it, and the SDK sends what it is given.
const SAMPLING = { temperature: 0.2 }

function client(url = server.url, fetch?: typeof globalThis.fetch): Anthropic {
  return new Anthropic({
    apiKey: 'sk-ant-test',
    baseURL: url,
    maxRetries: 0,
    timeout: 5_000,
    ...(fetch ? { fetch } : {}),
  })
}

const question = (): MessageParam[] => [{ role: 'user', content: QUESTION }]

describe('anthropic messages', () => {
  it('create: text, stop reason and usage as scripted; the request normalizes to the conversation', async () => {
    server.script({ text: 'Hello from the script.', usage: { inputTokens: 11, outputTokens: 7 } })
    const message = await client().messages.create({ ...BASE, messages: question(), ...SAMPLING })

    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Hello from the script.' }),
    ])
    expect(message.stop_reason).toBe('end_turn')
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 })
    expect(message.model).toBe(MODEL)
    const [call] = server.calls()
    expect(call?.api).toBe('anthropic-messages')
    expect(normalizedOf(server.provider, call!)).toEqual({
      model: MODEL,
      system: [{ type: 'text', text: SYSTEM }],
      messages: [USER_MESSAGE],
      tools: [],
      params: { maxTokens: 1024, temperature: 0.2 },
    })
  })

  it('create with tools: a tool_use block, then the tool_result normalizes to a tool message', async () => {
    server.script(LOOKUP, { text: FINAL_TEXT })
    const anthropic = client()
    const messages = question()
    const first = await anthropic.messages.create({ ...BASE, messages, tools: TOOLS })
    expect(first.stop_reason).toBe('tool_use')
    expect(first.content.map((b) => b.type)).toEqual(['text', 'tool_use'])
    const toolUse = first.content.find((b) => b.type === 'tool_use')
    expect(toolUse).toMatchObject({ id: 'toolu_A17', name: 'get_order', input: { order_id: 'A17' } })

    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_A17', content: ORDER_JSON }] },
    )
    const second = await anthropic.messages.create({ ...BASE, messages, tools: TOOLS })
    expect(second.content[0]?.type === 'text' && second.content[0].text).toBe(FINAL_TEXT)

    const request = normalizedOf(server.provider, server.calls()[1]!)
    expect(request.tools).toEqual([GET_ORDER])
    expect(request.messages).toEqual([
      USER_MESSAGE,
      toolCallMessage('toolu_A17', 'Let me look that up.'),
      toolResultMessage('toolu_A17'),
    ])
  })

  it('create with stream: the raw events carry the text, the tool input fragments and the usage', async () => {
    server.script({ ...LOOKUP, chunkSize: 4 })
    const stream = await client().messages.create({
      ...BASE,
      messages: question(),
      tools: TOOLS,
      stream: true,
    })
    const types: string[] = []
    let text = ''
    let json = ''
    let stop: string | null | undefined
    let output: number | undefined
    let input: number | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'message_start') input = event.message.usage.input_tokens
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
        json += event.delta.partial_json
      if (event.type === 'message_delta') {
        stop = event.delta.stop_reason
        output = event.usage.output_tokens
      }
    }
    expect(types[0]).toBe('message_start')
    expect(types.at(-1)).toBe('message_stop')
    expect(text).toBe('Let me look that up.')
    expect(JSON.parse(json)).toEqual({ order_id: 'A17' })
    expect([stop, input, output]).toEqual(['tool_use', 40, 12])
    const request = normalizedOf(server.provider, server.calls()[0]!)
    expect(request.params.stream).toBe(true)
  })

  it('the stream() helper: text events, and finalMessage() with the tool input built from input_json_delta', async () => {
    server.script({ ...LOOKUP, chunkSize: 3 })
    const stream = client().messages.stream({ ...BASE, messages: question(), tools: TOOLS })
    const deltas: string[] = []
    const jsonFragments: string[] = []
    stream.on('text', (delta) => deltas.push(delta))
    stream.on('inputJson', (partial) => jsonFragments.push(partial))
    const final = await stream.finalMessage()
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.join('')).toBe('Let me look that up.')
    expect(jsonFragments.join('')).not.toBe('')
    expect(final.content.find((b) => b.type === 'tool_use')).toMatchObject({
      id: 'toolu_A17',
      name: 'get_order',
      input: { order_id: 'A17' },
    })
    expect(final.stop_reason).toBe('tool_use')
    expect(final.usage).toMatchObject({ input_tokens: 40, output_tokens: 12 })
    expect(await stream.finalText()).toBe('Let me look that up.')
  })

  it('a stream normalizes to the same response as its plain twin', async () => {
    const turn: ScriptedTurn = { ...LOOKUP, reasoning: 'The user wants a refund; look the order up first.' }
    const ask = (stream: boolean) => (url: string) => {
      const capture = capturingFetch()
      const body = { ...BASE, messages: question(), tools: TOOLS }
      const anthropic = client(url, capture.fetch)
      const request = stream
        ? anthropic.messages.stream(body).finalMessage()
        : anthropic.messages.create(body)
      return request.then((message) => ({ message, captured: capture.responses[0]! }))
    }
    const plain = await once(turn, ask(false))
    const streamed = await once(turn, ask(true))
    // The SDK itself puts both back together the same way...
    expect(streamed.value.message.content).toEqual(plain.value.message.content)
    expect(plain.value.message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use'])
    // ...and so does the adapter, from the bytes on the wire; both are what the provider meant to serve.
    expect(streamed.value.captured.headers['content-type']).toMatch(/^text\/event-stream/)
    const fromPlain = readResponse(plain.value.captured.url, await plainWire(plain.value.captured))
    const fromStream = readResponse(streamed.value.captured.url, await streamWire(streamed.value.captured))
    expect(fromStream).toEqual(fromPlain)
    expect(fromPlain).toEqual(servedResponse(plain.answer))
    expect(fromPlain.toolCalls.map((c) => [c.id, c.args])).toEqual([['toolu_A17', { order_id: 'A17' }]])
  })
})
