import { randomUUID } from 'node:crypto'
import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, describe, expect, test } from 'vitest'
import { agentCase, live } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

const provider = await startScriptedProvider({ policy: () => ({ text: 'ok' }) })
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 })
// The parent test changes the date between recording and replay.
const today = process.env.FIXTURE_DATE ?? '2026-11-28'

function ask(content: string, extra: Record<string, unknown> = {}) {
  return client.chat.completions.create({
    model: 'gpt-5-mini',
    messages: [
      { role: 'system', content: `You help customers. Today is ${today}.` },
      { role: 'user', content },
    ],
    ...extra,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming)
}

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  const said = (r: (typeof provider.requests)[number]) => JSON.stringify(r.body)
  if (log)
    appendFileSync(
      log,
      `${JSON.stringify({
        requests: provider.requests.length,
        live: provider.requests.filter((r) => said(r).includes('LIVE')).length,
      })}\n`,
    )
})

test('a custom token and a hook are redacted from the cassette', async () => {
  const answer = await ask('My ticket ACME-123456 for tenant-bluebird', { x_tenant: 'secret-tenant' })
  expect(answer.choices[0]?.message.content).toBe('ok')
})

test('a new trace id and a new date still replay', async () => {
  const answer = await ask('Where is A17?', { x_trace_id: randomUUID() })
  expect(answer.choices[0]?.message.content).toBe('ok')
})

test('a live test reaches the provider', live(), async () => {
  const answer = await ask('LIVE single test')
  expect(answer.choices[0]?.message.content).toBe('ok')
})

describe('a live describe', live(), () => {
  test(
    'its tests are live, and agentCase still grades the run',
    agentCase(async (input: string) => (await ask(input)).choices[0]?.message.content, {
      agent: 'live-bot',
      input: 'LIVE in a describe',
      oracles: [(run) => run.llmCalls().length === 1 || 'one model call, captured in memory'],
    }),
  )

  test('a test can opt back in', { meta: { crashlab: { live: false } } }, async () => {
    const answer = await ask('Recorded again inside a live describe')
    expect(answer.choices[0]?.message.content).toBe('ok')
  })
})
