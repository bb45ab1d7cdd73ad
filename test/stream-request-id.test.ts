import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LlmStep } from '../src/case/index.ts'
import { type Interceptor, startInterceptor } from '../src/interceptor/index.ts'
import { recordToCassette } from './helpers/cassette-round-trip.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * A model step's `requestId` is the server's request-id header (`x-request-id` on OpenAI's APIs,
 * `request-id` on Anthropic's), the id support asks for, whether the call streamed or not; the body's
 * own id (`chatcmpl-…`, `msg_…`) only when the server sent no such header.
 */

const server = useScriptedProvider()
let interceptor: Interceptor
let dir: string
beforeAll(() => {
  interceptor = startInterceptor({ hosts: [server.url] })
  dir = mkdtempSync(join(tmpdir(), 'crashlab-request-id-'))
})
afterAll(async () => {
  await interceptor.close()
  rmSync(dir, { recursive: true, force: true })
})

const KEY = 'sk-test-not-a-secret'
const messages = [{ role: 'user' as const, content: 'Hi' }]

/** The recorded model steps, with the request-id header each response carried. */
async function recorded(name: string, agent: () => Promise<unknown>) {
  const { run } = await recordToCassette(dir, name, agent)
  return (run.steps as LlmStep[]).map((s) => ({
    stream: s.response?.wire.chunks !== undefined,
    header: s.response?.wire.headers['x-request-id'] ?? s.response?.wire.headers['request-id'],
    requestId: s.response?.normalized?.requestId,
  }))
}

/** Each step's request id is its response's request-id header (the scripted provider's `req_scripted_N`). */
function expectHeaderIds(steps: Array<{ header: string | undefined; requestId: string | null | undefined }>) {
  for (const step of steps) expect(step.header).toMatch(/^req_scripted_\d+$/)
  expect(steps.map((s) => s.requestId)).toEqual(steps.map((s) => s.header))
}

describe('the request id of a recorded model step', () => {
  it('OpenAI chat: the x-request-id header, for a streamed call as for a plain one', async () => {
    server.script({ text: 'Hello.' }, { text: 'Hello again.', chunkSize: 3 })
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 })
    const steps = await recorded('openai-chat', async () => {
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages })
      const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true })
      for await (const _ of stream);
    })
    expect(steps.map((s) => s.stream)).toEqual([false, true])
    expectHeaderIds(steps)
  })

  it('OpenAI Responses: the x-request-id header when streamed', async () => {
    server.script({ text: 'Hello.', chunkSize: 3 })
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 })
    const steps = await recorded('openai-responses', async () => {
      const stream = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hi', stream: true })
      for await (const _ of stream);
    })
    expect(steps.map((s) => s.stream)).toEqual([true])
    expectHeaderIds(steps)
  })

  it('Anthropic messages: the request-id header when streamed', async () => {
    server.script({ text: 'Hello.', chunkSize: 3 })
    const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 })
    const steps = await recorded('anthropic', async () => {
      const stream = await client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        messages,
        stream: true,
      })
      for await (const _ of stream);
    })
    expect(steps.map((s) => s.stream)).toEqual([true])
    expectHeaderIds(steps)
  })
})
