import Anthropic from '@anthropic-ai/sdk'
import AnthropicV0 from 'anthropic-sdk-v0'
import OpenAI from 'openai'
import OpenAIV6 from 'openai-v6'
import { describe, expect, it } from 'vitest'
import type { ReceivedRequest } from '../src/testing/index.ts'
import { GET_ORDER, ORDER_JSON, ORDER_PARAMS, QUESTION, SYSTEM } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'
import { hashOf, normalizedOf } from './helpers/sdk-wire.ts'

/**
 * The request hash is the identity a cassette matches on: it must not change when a user upgrades
 * their SDK. The same conversation (system, user, an assistant tool call, its result, a tool,
 * temperature) goes through two majors of each SDK to the scripted provider; the recorded requests
 * differ in their headers (SDK version, retry count, user agent) and hash the same.
 */

const server = useScriptedProvider()
const TEMPERATURE = 0.2

type Send = (url: string, temperature: number) => Promise<unknown>
const OPTIONS = { maxRetries: 0, timeout: 5_000 }
const openai = (url: string) => new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, ...OPTIONS })
const openaiV6 = (url: string) => new OpenAIV6({ apiKey: 'sk-test', baseURL: `${url}/v1`, ...OPTIONS })
// The two Anthropic majors default to different API versions (`anthropic-version`), and the API version
// is part of what was asked: a response of one API version is not an answer for another. An app that
// pins its API version, as these clients do, keeps its hashes across an SDK upgrade; the test at the end
// shows the default versions, and that they do change the hash.
const PINNED = { defaultHeaders: { 'anthropic-version': '2023-06-01' } }
const anthropic = (url: string, o = PINNED) =>
  new Anthropic({ apiKey: 'sk-ant-test', baseURL: url, ...OPTIONS, ...o })
const anthropicV0 = (url: string, o = PINNED) =>
  new AnthropicV0({ apiKey: 'sk-ant-test', baseURL: url, ...OPTIONS, ...o })

const chatBody = (temperature: number) => ({
  model: 'gpt-4o-mini',
  temperature,
  tools: [{ type: 'function' as const, function: { ...GET_ORDER, parameters: ORDER_PARAMS } }],
  messages: [
    { role: 'system' as const, content: SYSTEM },
    { role: 'user' as const, content: QUESTION },
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        {
          id: 'call_A17',
          type: 'function' as const,
          function: { name: 'get_order', arguments: '{"order_id":"A17"}' },
        },
      ],
    },
    { role: 'tool' as const, tool_call_id: 'call_A17', content: ORDER_JSON },
  ],
})

const responsesBody = (temperature: number) => ({
  model: 'gpt-4.1-mini',
  temperature,
  instructions: SYSTEM,
  tools: [{ type: 'function' as const, ...GET_ORDER, parameters: ORDER_PARAMS, strict: true }],
  input: [
    { role: 'user' as const, content: QUESTION },
    {
      type: 'function_call' as const,
      call_id: 'call_A17',
      name: 'get_order',
      arguments: '{"order_id":"A17"}',
    },
    { type: 'function_call_output' as const, call_id: 'call_A17', output: ORDER_JSON },
  ],
})

const messagesBody = (temperature: number) => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  // The v1 types no longer list `temperature`; the API takes it, and both majors send what they are given.
  ...{ temperature },
  system: SYSTEM,
  tools: [
    {
      name: GET_ORDER.name,
      description: GET_ORDER.description!,
      input_schema: { ...ORDER_PARAMS, type: 'object' as const },
    },
  ],
  messages: [
    { role: 'user' as const, content: QUESTION },
    {
      role: 'assistant' as const,
      content: [
        { type: 'tool_use' as const, id: 'toolu_A17', name: 'get_order', input: { order_id: 'A17' } },
      ],
    },
    {
      role: 'user' as const,
      content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_A17', content: ORDER_JSON }],
    },
  ],
})

/** Sends the conversation through `send` and returns the one request the provider recorded. */
async function record(send: Send, temperature = TEMPERATURE): Promise<ReceivedRequest> {
  server.script({ text: 'Refunded.' })
  await send(server.url, temperature)
  const calls = server.calls()
  expect(calls).toHaveLength(1)
  return calls[0]!
}

const CASES: Array<[string, Send, Send, string]> = [
  [
    'openai chat: openai v7 and v6',
    (url, t) => openai(url).chat.completions.create(chatBody(t)),
    (url, t) => openaiV6(url).chat.completions.create(chatBody(t)),
    'openai-chat',
  ],
  [
    'openai responses: openai v7 and v6',
    (url, t) => openai(url).responses.create(responsesBody(t)),
    (url, t) => openaiV6(url).responses.create(responsesBody(t)),
    'openai-responses',
  ],
  [
    'anthropic messages: @anthropic-ai/sdk v1 and v0',
    (url, t) => anthropic(url).messages.create(messagesBody(t)),
    (url, t) => anthropicV0(url).messages.create(messagesBody(t)),
    'anthropic-messages',
  ],
]

describe.each(CASES)('requestHash across SDK majors, %s', (_, current, previous, api) => {
  it('is equal across the two majors and across two runs, though the headers differ', async () => {
    const runs = [
      await record(current),
      await record(current),
      await record(previous),
      await record(previous),
    ]
    expect(runs.map((r) => r.api)).toEqual([api, api, api, api])

    // The normalized requests are equal, and carry the whole conversation.
    const normalized = runs.map((r) => normalizedOf(server.provider, r))
    for (const n of normalized) expect(n).toEqual(normalized[0])
    expect(normalized[0]?.params.temperature).toBe(TEMPERATURE)
    expect(normalized[0]?.system).toEqual([{ type: 'text', text: SYSTEM }])
    expect(normalized[0]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(normalized[0]?.tools).toEqual([GET_ORDER])

    // The SDK identifies itself differently...
    const [a, , b] = runs as [ReceivedRequest, ReceivedRequest, ReceivedRequest]
    const major = (r: ReceivedRequest) => r.headers['x-stainless-package-version']?.split('.')[0]
    expect(major(a)).toMatch(/^\d+$/)
    expect(major(b)).toMatch(/^\d+$/)
    expect(major(a)).not.toBe(major(b))
    expect(a.headers['user-agent']).not.toBe(b.headers['user-agent'])

    // ...and the hash ignores it: equal run to run, and major to major.
    const [current1, current2, previous1, previous2] = runs.map((r) => hashOf(server.provider, r))
    expect(current1).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(current2).toBe(current1)
    expect(previous2).toBe(previous1)
    const versions = `anthropic-version ${a.headers['anthropic-version']} vs ${b.headers['anthropic-version']}`
    expect(previous1, `hash across majors (${versions})`).toBe(current1)
  })

  it('changes when the conversation does (temperature 0.2 → 0.3)', async () => {
    const base = hashOf(server.provider, await record(current))
    expect(hashOf(server.provider, await record(previous, 0.3))).not.toBe(base)
    expect(hashOf(server.provider, await record(current, 0.3))).not.toBe(base)
  })
})

describe('requestHash and the Anthropic API version', () => {
  it('changes when the API version does: the two majors default to different versions', async () => {
    const v1 = await record((url, t) => anthropic(url, {} as typeof PINNED).messages.create(messagesBody(t)))
    const v0 = await record((url, t) =>
      anthropicV0(url, {} as typeof PINNED).messages.create(messagesBody(t)),
    )
    expect(v1.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(v0.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(v1.headers['anthropic-version']).not.toBe(v0.headers['anthropic-version'])
    expect(normalizedOf(server.provider, v1)).toEqual(normalizedOf(server.provider, v0))
    expect(hashOf(server.provider, v1)).not.toBe(hashOf(server.provider, v0))
  })
})
