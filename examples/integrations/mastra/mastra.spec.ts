/**
 * The Mastra support agent, tested the crashlab way: each test replays its cassette from
 * `__cassettes__/mastra.spec.ts/` offline under CI, and `node ../record-cassettes.ts` records it
 * again against the scripted provider started here (no key, no network).
 */
import { appendFileSync } from 'node:fs'
import { afterAll, expect, test as plain } from 'vitest'
import { agentCase, test } from '../../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { check } from '../../../src/index.ts' // in your project: 'crashlab'
import { startScriptedProvider } from '../../../src/testing/index.ts' // in your project: 'crashlab/testing'
import { refundNeverExceedsTotal } from '../shared/oracles.ts'
import { createShop, INPUT, type Refund } from '../shared/shop.ts'
import { supportModel } from '../shared/support-model.ts'
import { runSupportAgent } from './agent.ts'

const AGENT = 'mastra-support'
check(AGENT, refundNeverExceedsTotal)

// Stand-ins for the live model, only asked while recording: one that obeys the refund cap, one that
// refunds ten times the total. Seeded: a re-record makes the same decisions.
const obeying = await startScriptedProvider({ policy: supportModel(), seed: 1 })
const violating = await startScriptedProvider({ policy: supportModel({ violationRate: 1 }), seed: 1 })
const refunds: Refund[] = []

/** The agent with a shop of its own; the refunds it really issued are kept to show a replay issues none. */
const supportAgent = (url: string) => async (input: string) => {
  const shop = createShop()
  try {
    return await runSupportAgent(input, { baseURL: `${url}/v1`, shop })
  } finally {
    refunds.push(...shop.refunds)
  }
}

afterAll(async () => {
  await Promise.all([obeying.close(), violating.close()])
  const log = process.env.FIXTURE_LOG // read by test/examples-integrations.test.ts
  const requests = obeying.requests.length + violating.requests.length
  if (log) appendFileSync(log, `${JSON.stringify({ requests, refunds: refunds.length })}\n`)
})

plain(
  'refunds a damaged order through agent.generate',
  agentCase(supportAgent(obeying.url), {
    agent: AGENT,
    input: INPUT,
    assert: (run) => {
      expect(run).toPassChecks({ requireChecks: true })
      expect(run).toCallTool('get_order', { order_id: 'A17' })
      expect(run).toCallTool('issue_refund', { order_id: 'A17', amount: 49 })
      // The refund id is random: replay serves the recorded one, so the answer quotes it.
      const refundId = run.toolCalls<unknown, { refund_id: string }>('issue_refund')[0]?.result?.refund_id
      expect(refundId).toMatch(/^rf_/)
      expect(run.finalMessage).toContain(String(refundId))
      // The model router with a `url` speaks Chat Completions; the tool calls as Mastra reports them.
      expect(run.llmCalls().map((c) => c.provider)).toEqual(Array(3).fill('openai-chat'))
      expect(run.output).toMatchObject({ tools: ['get_order', 'issue_refund'] })
    },
  }),
)

test('the oracle catches a model that refunds ten times the total', async ({ agent }) => {
  const run = await agent.run(supportAgent(violating.url), { name: AGENT, input: INPUT })
  expect(run.outcome).toBe('fail')
  expect(run).toCallTool('issue_refund', { order_id: 'A17', amount: 490 })
  expect(run.checks.find((c) => !c.passed)?.message).toContain('490')
})
