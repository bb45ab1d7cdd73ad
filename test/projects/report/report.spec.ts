import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, expect, test } from 'vitest'
import { runRefundBot } from '../../../examples/refund-bot/agent.ts'
import '../../../examples/refund-bot/oracles.ts'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { createShop, type Refund } from '../../../examples/refund-bot/shop.ts'
import { agentCase, live } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

// What the crashlab reporter sums up: agent runs that record or replay, one that runs live, a test
// that touches no model. The parent test reads the summary line and the table from the output.
const provider = await startScriptedProvider({ policy: refundModel(), seed: 1 })
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 })
const refunds: Refund[] = []
const INPUT = 'Refund my order A17, it arrived broken'

async function refundBot(input: string): Promise<string> {
  const shop = createShop()
  try {
    return await runRefundBot(input, { client, shop })
  } finally {
    refunds.push(...shop.refunds)
  }
}

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log)
    appendFileSync(
      log,
      `${JSON.stringify({ requests: provider.requests.length, refunds: refunds.length })}\n`,
    )
})

test('clean refund', agentCase(refundBot, { agent: 'refund-bot', input: INPUT }))

test(
  'refund within policy',
  agentCase(refundBot, {
    agent: 'refund-bot',
    input: INPUT,
    // Set by the parent test: an oracle the run fails, so the test fails and its row comes first.
    oracles: process.env.FIXTURE_EXTRA_ORACLE
      ? [(run) => run.toolCalls('issue_refund').length === 0 || 'a refund was issued']
      : [],
  }),
)

test('live smoke', live(), agentCase(refundBot, { agent: 'refund-bot', input: INPUT }))

test('calls no model', () => {
  expect(refunds.length).toBeGreaterThanOrEqual(0)
})
