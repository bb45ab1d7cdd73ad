import OpenAI from 'openai'
import { afterAll, expect, test as plain } from 'vitest'
import { runRefundBot } from '../../../examples/refund-bot/agent.ts'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { createShop } from '../../../examples/refund-bot/shop.ts'
import { agentCase, test } from '../../../plugin/index.ts'
import { type Run, record, wrap } from '../../../src/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

const provider = await startScriptedProvider({ policy: refundModel(), seed: 1 })
const client = wrap(
  new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 }),
)
const INPUT = 'Refund my order A17, it arrived broken'
const bot = (input: string) => runRefundBot(input, { client, shop: createShop() })

afterAll(() => provider.close())

/** What crashlab.config.ts implies for a run: its price, by hand, and a budget warning at 50% of 2 tool calls. */
function expectConfigHonoured(run: Run): void {
  const byHand = (run.usage.inputTokens * 100 + run.usage.outputTokens * 400) / 1e6
  expect(run.usage.inputTokens).toBeGreaterThan(0)
  expect(run.cost?.usd).toBeCloseTo(byHand, 10)
  const budget = run.findings.filter((f) => f.kind === 'budget')
  expect(budget).toHaveLength(1)
  expect(budget[0]).toMatchObject({ severity: 'warn' })
  expect(budget[0]?.message).toMatch(/tool calls/i)
}

test('the plugin honours crashlab.config.ts', async ({ agent }) => {
  const run = await agent.run(bot, { name: 'refund-bot', input: INPUT })
  expectConfigHonoured(run)
  expect(run).toHaveFinding('budget', { minSeverity: 'warn' })
  expect(run).toCostLessThan(1)
  console.log(`FIXTURE plugin cost=${run.cost?.usd} findings=${run.findings.map((f) => f.kind).join(',')}`)
})

plain('a plain record() call honours the same file', async () => {
  const { run, error } = await record('refund', bot, { input: INPUT, agent: 'refund-bot' })
  expect(error).toBeUndefined()
  expectConfigHonoured(run)
  console.log(`FIXTURE record cost=${run.cost?.usd} findings=${run.findings.map((f) => f.kind).join(',')}`)
})

plain(
  "a test's own checks win over the file",
  agentCase(bot, {
    agent: 'refund-bot',
    input: INPUT,
    checks: { maxToolCalls: 10 },
    assert: (run) => {
      expect(run.run.findings.filter((f) => f.kind === 'budget')).toEqual([])
    },
  }),
)
