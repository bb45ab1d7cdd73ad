import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses'
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
 * The OpenAI SDK (v7) against the scripted provider over loopback HTTP: what the SDK returns is the
 * scripted turn, and what it sent normalizes, through the adapters, to the conversation it was given.
 */

const server = useScriptedProvider()
const MODEL = 'gpt-4o-mini'
const CHAT_TOOLS: ChatCompletionTool[] = [
  { type: 'function', function: { ...GET_ORDER, parameters: ORDER_PARAMS } },
]
const RESPONSE_TOOLS: FunctionTool[] = [
  { type: 'function', ...GET_ORDER, parameters: ORDER_PARAMS, strict: true },
]
const CALL = { name: 'get_order', args: { order_id: 'A17' }, id: 'call_A17' }
const LOOKUP: ScriptedTurn = {
  text: 'Let me look that up.',
  toolCalls: [CALL],
  usage: { inputTokens: 40, outputTokens: 12 },
}

function client(url = server.url, fetch?: typeof globalThis.fetch): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${url}/v1`,
    maxRetries: 0,
    timeout: 5_000,
    ...(fetch ? { fetch } : {}),
  })
}

const chatMessages = (): ChatCompletionMessageParam[] => [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: QUESTION },
]

describe('openai chat.completions', () => {
  it('create: text, finish reason and usage as scripted; the request normalizes to the conversation', async () => {
    server.script({ text: 'Hello from the script.', usage: { inputTokens: 11, outputTokens: 7 } })
    const completion = await client().chat.completions.create({
      model: MODEL,
      messages: chatMessages(),
      temperature: 0.2,
    })

    expect(completion.choices[0]?.message.content).toBe('Hello from the script.')
    expect(completion.choices[0]?.finish_reason).toBe('stop')
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 })
    expect(completion.model).toBe(MODEL)
    const [call] = server.calls()
    expect(call?.api).toBe('openai-chat')
    expect(normalizedOf(server.provider, call!)).toEqual({
      model: MODEL,
      system: [{ type: 'text', text: SYSTEM }],
      messages: [USER_MESSAGE],
      tools: [],
      params: { temperature: 0.2 },
    })
  })

  it('create with tools: a tool call with parsed args, then the result travels back as a tool message', async () => {
    server.script(LOOKUP, { text: FINAL_TEXT })
    const openai = client()
    const messages = chatMessages()
    const first = await openai.chat.completions.create({ model: MODEL, messages, tools: CHAT_TOOLS })
    const choice = first.choices[0]!
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.content).toBe('Let me look that up.')
    const toolCall = choice.message.tool_calls?.[0]
    expect(toolCall?.type === 'function' && toolCall.function.name).toBe('get_order')
    expect(toolCall?.id).toBe('call_A17')
    expect(JSON.parse(toolCall?.type === 'function' ? toolCall.function.arguments : '')).toEqual({
      order_id: 'A17',
    })

    messages.push(choice.message, { role: 'tool', tool_call_id: 'call_A17', content: ORDER_JSON })
    const second = await openai.chat.completions.create({ model: MODEL, messages, tools: CHAT_TOOLS })
    expect(second.choices[0]?.message.content).toBe(FINAL_TEXT)

    const calls = server.calls()
    expect(calls).toHaveLength(2)
    const request = normalizedOf(server.provider, calls[1]!)
    expect(request.tools).toEqual([GET_ORDER])
    expect(request.messages).toEqual([
      USER_MESSAGE,
      toolCallMessage('call_A17', 'Let me look that up.'),
      toolResultMessage('call_A17'),
    ])
  })

  it('create with stream: deltas add up to the turn; usage comes in the include_usage chunk', async () => {
    server.script({ ...LOOKUP, chunkSize: 4 })
    const stream = await client().chat.completions.create({
      model: MODEL,
      messages: chatMessages(),
      tools: CHAT_TOOLS,
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let args = ''
    let finish: string | null | undefined
    let usage: OpenAI.CompletionUsage | null | undefined
    let chunks = 0
    for await (const chunk of stream) {
      chunks++
      const choice = chunk.choices[0]
      text += choice?.delta.content ?? ''
      args += choice?.delta.tool_calls?.[0]?.function?.arguments ?? ''
      finish = choice?.finish_reason ?? finish
      usage = chunk.usage ?? usage
    }
    expect(chunks).toBeGreaterThan(5)
    expect(text).toBe('Let me look that up.')
    expect(JSON.parse(args)).toEqual({ order_id: 'A17' })
    expect(finish).toBe('tool_calls')
    expect(usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 12 })
    const request = normalizedOf(server.provider, server.calls()[0]!)
    expect(request.params).toMatchObject({ stream: true, extra: { stream_options: { include_usage: true } } })
  })

  it('the stream() helper: finalChatCompletion() holds the text and the tool call', async () => {
    server.script({ ...LOOKUP, chunkSize: 3 })
    const runner = client().chat.completions.stream({
      model: MODEL,
      messages: chatMessages(),
      tools: CHAT_TOOLS,
    })
    const deltas: string[] = []
    runner.on('content.delta', ({ delta }) => deltas.push(delta))
    const final = await runner.finalChatCompletion()
    const message = final.choices[0]?.message
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.join('')).toBe('Let me look that up.')
    expect(message?.content).toBe('Let me look that up.')
    const toolCall = message?.tool_calls?.[0]
    expect(toolCall?.type === 'function' && JSON.parse(toolCall.function.arguments)).toEqual({
      order_id: 'A17',
    })
    expect(final.choices[0]?.finish_reason).toBe('tool_calls')
  })

  it('a stream normalizes to the same response as its plain twin', async () => {
    const ask = (stream: boolean) => (url: string) => {
      const capture = capturingFetch()
      const body = { model: MODEL, messages: chatMessages(), tools: CHAT_TOOLS }
      const request = stream
        ? client(url, capture.fetch)
            .chat.completions.stream({ ...body, stream_options: { include_usage: true } })
            .finalChatCompletion()
        : client(url, capture.fetch).chat.completions.create(body)
      return request.then(() => capture.responses[0]!)
    }
    const plain = await once(LOOKUP, ask(false))
    const streamed = await once(LOOKUP, ask(true))
    expect(streamed.value.headers['content-type']).toMatch(/^text\/event-stream/)
    const fromPlain = readResponse(plain.value.url, await plainWire(plain.value))
    const fromStream = readResponse(streamed.value.url, await streamWire(streamed.value))
    expect(fromStream).toEqual(fromPlain)
    // And both are what the scripted provider meant to serve.
    expect(fromPlain).toEqual(servedResponse(plain.answer))
    expect(fromPlain.toolCalls.map((c) => [c.id, c.args])).toEqual([['call_A17', { order_id: 'A17' }]])
  })
})

describe('openai responses', () => {
  it('create: output_text and usage as scripted; instructions and input normalize', async () => {
    server.script({ text: 'Hello from the script.', usage: { inputTokens: 9, outputTokens: 5 } })
    const response = await client().responses.create({ model: MODEL, instructions: SYSTEM, input: QUESTION })
    expect(response.output_text).toBe('Hello from the script.')
    expect(response.status).toBe('completed')
    expect(response.usage).toMatchObject({ input_tokens: 9, output_tokens: 5, total_tokens: 14 })
    const [call] = server.calls()
    expect(call?.api).toBe('openai-responses')
    const request = normalizedOf(server.provider, call!)
    expect(request).toMatchObject({ model: MODEL, system: [{ type: 'text', text: SYSTEM }], tools: [] })
    expect(request.messages).toEqual([USER_MESSAGE])
  })

  it('create with tools: a function_call, then function_call_output normalizes to a tool message', async () => {
    server.script({ toolCalls: [CALL] }, { text: FINAL_TEXT })
    const openai = client()
    const input: ResponseInputItem[] = [{ role: 'user', content: QUESTION }]
    const first = await openai.responses.create({
      model: MODEL,
      instructions: SYSTEM,
      input,
      tools: RESPONSE_TOOLS,
    })
    const fc = first.output.find((item) => item.type === 'function_call')
    expect(fc).toMatchObject({ type: 'function_call', name: 'get_order', call_id: 'call_A17' })
    expect(JSON.parse(fc?.type === 'function_call' ? fc.arguments : '')).toEqual({ order_id: 'A17' })

    // What an agent sends back: the model's function call item, then its output.
    input.push(...first.output.filter((item) => item.type === 'function_call'))
    input.push({ type: 'function_call_output', call_id: 'call_A17', output: ORDER_JSON })
    const second = await openai.responses.create({
      model: MODEL,
      instructions: SYSTEM,
      input,
      tools: RESPONSE_TOOLS,
    })
    expect(second.output_text).toBe(FINAL_TEXT)

    const request = normalizedOf(server.provider, server.calls()[1]!)
    expect(request.tools).toEqual([GET_ORDER])
    expect(request.messages).toEqual([
      USER_MESSAGE,
      toolCallMessage('call_A17'),
      toolResultMessage('call_A17'),
    ])
  })

  it('create with stream: text deltas add up; response.completed carries the usage', async () => {
    server.script({
      text: 'Streaming from the script.',
      chunkSize: 5,
      usage: { inputTokens: 9, outputTokens: 6 },
    })
    const stream = await client().responses.create({ model: MODEL, input: QUESTION, stream: true })
    const types: string[] = []
    let text = ''
    let usage: OpenAI.Responses.ResponseUsage | null | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') usage = event.response.usage
    }
    expect(text).toBe('Streaming from the script.')
    expect(types[0]).toBe('response.created')
    expect(types.at(-1)).toBe('response.completed')
    expect(types.filter((t) => t === 'response.output_text.delta').length).toBeGreaterThan(3)
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 6 })
  })

  it('the stream() helper: finalResponse() holds the text and the function call', async () => {
    server.script({ ...LOOKUP, chunkSize: 4 })
    const stream = client().responses.stream({ model: MODEL, input: QUESTION, tools: RESPONSE_TOOLS })
    const final = await stream.finalResponse()
    expect(final.output_text).toBe('Let me look that up.')
    const fc = final.output.find((item) => item.type === 'function_call')
    expect(fc?.type === 'function_call' && [fc.call_id, fc.name, JSON.parse(fc.arguments)]).toEqual([
      'call_A17',
      'get_order',
      { order_id: 'A17' },
    ])
    expect(final.usage).toMatchObject({ input_tokens: 40, output_tokens: 12 })
  })

  it('a stream normalizes to the same response as its plain twin', async () => {
    const turn: ScriptedTurn = { ...LOOKUP, reasoning: 'The user wants a refund; look the order up first.' }
    const ask = (stream: boolean) => (url: string) => {
      const capture = capturingFetch()
      const body = { model: MODEL, input: QUESTION, tools: RESPONSE_TOOLS }
      const openai = client(url, capture.fetch)
      const request = stream ? openai.responses.stream(body).finalResponse() : openai.responses.create(body)
      return request.then(() => capture.responses[0]!)
    }
    const plain = await once(turn, ask(false))
    const streamed = await once(turn, ask(true))
    expect(streamed.value.headers['content-type']).toMatch(/^text\/event-stream/)
    const fromPlain = readResponse(plain.value.url, await plainWire(plain.value))
    const fromStream = readResponse(streamed.value.url, await streamWire(streamed.value))
    expect(fromStream).toEqual(fromPlain)
    // And both are what the scripted provider meant to serve.
    expect(fromPlain).toEqual(servedResponse(plain.answer))
    expect(fromPlain.parts.map((p) => p.type)).toEqual(['reasoning', 'text'])
  })
})
