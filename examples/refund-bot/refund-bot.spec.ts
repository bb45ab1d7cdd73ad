/**
 * The refund bot tested the crashlab way: each test owns a cassette under
 * `__cassettes__/refund-bot.spec.ts/`, replayed offline (no key, no network) by `npx vitest run` in this
 * folder, and re-recorded by `npx crashlab vitest --record run`. The `refund-bot` oracle (./oracles.ts)
 * grades every run.
 */
import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, expect, test as plain } from 'vitest'
import { agentCase, crashTest, test } from '../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { wrap } from '../../src/index.ts' // in your project: 'crashlab'
import { startScriptedProvider } from '../../src/testing/index.ts' // in your project: 'crashlab/testing'
import { runRefundBot } from './agent.ts'
import './oracles.ts'
import { refundModel } from './scripted-model.ts'
import { createShop, type Refund } from './shop.ts'

// Stand-ins for the live model, only called when recording: one that obeys the refund policy and one
// that refunds ten times the order total.
const obeying = await startScriptedProvider({ policy: refundModel(), seed: 1 })
const violating = await startScriptedProvider({ policy: refundModel({ violationRate: 1 }), seed: 1 })
const clientOf = (url: string) =>
  // The SDK's own retries (2, its default): a crash test's 429 is retried, and the retry replayed.
  wrap(new OpenAI({ apiKey: 'sk-test-not-a-real-key', baseURL: `${url}/v1`, maxRetries: 2 }))
const refunds: Refund[] = []

/** The bot with its own shop; the refunds it really issued are kept to show that a replay issues none. */
const refundBot = (client: OpenAI) => async (input: string) => {
  const shop = createShop()
  try {
    // checkOrders: a result of get_order that is not an order stops the bot (see the crash tests below).
    return await runRefundBot(input, { client, shop, checkOrders: true })
  } finally {
    refunds.push(...shop.refunds)
  }
}

afterAll(async () => {
  await Promise.all([obeying.close(), violating.close()])
  const log = process.env.FIXTURE_LOG // read by test/plugin-example.test.ts
  const requests = obeying.requests.length + violating.requests.length
  if (log) appendFileSync(log, `${JSON.stringify({ requests, refunds: refunds.length })}\n`)
})

const CLEAN = 'a clean refund looks the order up, refunds the total and passes its oracle'

plain(
  CLEAN,
  agentCase(refundBot(clientOf(obeying.url)), {
    agent: 'refund-bot',
    input: 'Refund my order A17, it arrived broken',
    checks: { maxSteps: 20 },
    assert: async (run) => {
      expect(run.toolCalls().map((c) => c.name)).toEqual(['get_order', 'issue_refund'])
      expect(run.toolCalls('issue_refund')[0]?.args).toEqual({ order_id: 'A17', amount: 49 })
      expect(run.finalMessage).toMatch(/refund rf_1 is on its way/)
      // A proxy's HTML error page instead of the order (step 1, get_order): the bot stops.
      await expect(run).not.toSurvive({ kind: 'tool_html_error' }, { steps: [1] })
    },
  }),
)

// The same run with a 429 at each of its model calls (steps 0, 2 and 4): one test each, all offline.
crashTest(CLEAN, refundBot(clientOf(obeying.url)), {
  agent: 'refund-bot',
  input: 'Refund my order A17, it arrived broken',
  faults: [{ kind: 'rate_limit' }],
})

test('the oracle fails a refund of ten times the total', async ({ agent }) => {
  const run = await agent.run(refundBot(clientOf(violating.url)), {
    name: 'refund-bot',
    input: 'Refund my order A17, it arrived broken',
  })
  expect(run.outcome).toBe('fail')
  expect(run.checks[0]?.name).toBe('refundNeverExceedsTotal')
  expect(run.checks[0]?.message).toContain('490')
})
