import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, describe, expect, test } from 'vitest'
import { agentCase, crashTest } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { policy, refundBot } from './refund-bot.ts'

// A live provider for the run that records; a crash variant is a replay and must never reach it.
const provider = await startScriptedProvider({ policy, seed: 1 })
// Created at module load: the plugin's setup file started the interceptor before.
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 2 })
const bot = (input: string) => refundBot(client, input)
const input = 'Refund my order A17, it arrived broken'

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log) appendFileSync(log, `${JSON.stringify({ requests: provider.requests.length, refunds: 0 })}\n`)
})

test(
  'refund',
  agentCase(bot, {
    agent: 'refund-bot',
    input,
    assert: (run) => expect(run.finalMessage).toMatch(/refund of \$49/),
  }),
)

crashTest('refund', bot, {
  agent: 'refund-bot',
  input,
  survive: (run) => expect(run.output).toMatch(/refund|could not/),
})

// A base case with no agentCase test: its cassette never exists.
crashTest('never recorded', bot, { agent: 'refund-bot', input, faults: [{ kind: 'rate_limit' }] })

// In a describe: the base case is the test of that name in the same describe.
describe('nested', () => {
  test('refund', agentCase(bot, { agent: 'refund-bot', input }))
  crashTest('refund', bot, { agent: 'refund-bot', input, faults: [{ kind: 'rate_limit' }], steps: [0] })
})

// Another test's cassette, named by path.
crashTest('refund by path', bot, {
  agent: 'refund-bot',
  input,
  cassette: '__cassettes__/crash.spec.ts/refund.cassette.json',
  faults: [{ kind: 'server_error' }],
  steps: [2],
})
