import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, expect, test as plain } from 'vitest'
import { runRefundBot } from '../../../examples/refund-bot/agent.ts'
import '../../../examples/refund-bot/oracles.ts'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { createShop, type Refund } from '../../../examples/refund-bot/shop.ts'
import { agentCase, REPLAY, test } from '../../../plugin/index.ts'
import { wrap } from '../../../src/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

// A live provider for the runs that record; a replay must never reach it.
const provider = await startScriptedProvider({ policy: refundModel(), seed: 1 })
const client = wrap(
  new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 }),
)
const refunds: Refund[] = []
const INPUT = 'Refund my order A17, it arrived broken'
// Set by the parent test to make the agent diverge from its cassette.
const suffix = process.env.FIXTURE_INPUT_SUFFIX ?? ''

/** The agent as people write it: it turns every failure into an apology, so nothing reaches the test. */
async function politeRefundBot(input: string): Promise<string> {
  const shop = createShop()
  try {
    return await runRefundBot(input + suffix, { client, shop })
  } catch {
    return 'Sorry, something went wrong.'
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

plain(
  'clean refund',
  agentCase(politeRefundBot, {
    agent: 'refund-bot',
    input: INPUT,
    checks: { maxSteps: 20 },
    // Set by the parent test: an oracle of this test only, which the run fails.
    oracles: process.env.FIXTURE_EXTRA_ORACLE
      ? [
          function noRefundAtAll(run) {
            return run.toolCalls('issue_refund').length === 0 || 'a refund was issued'
          },
        ]
      : [],
    assert: (run) => {
      expect(run.toolCalls('issue_refund')).toHaveLength(1)
      expect(run.finalMessage).toMatch(/refund rf_1 is on its way/)
    },
  }),
)

test('fixture: refund, then replay it offline', async ({ agent }) => {
  const run = await agent.run(politeRefundBot, { name: 'refund-bot', input: INPUT })
  expect(run.outcome).toBe('pass')
  const before = provider.requests.length
  const again = await run[REPLAY]()
  expect(provider.requests.length).toBe(before)
  expect(again.steps.map((s) => s.type)).toEqual(run.steps.map((s) => s.type))
  expect(again.links.replayOf).toBe(run.id)
})

plain('a test that runs no agent needs no cassette', () => {
  expect(1 + 1).toBe(2)
})
