import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, expect, test } from 'vitest'
import { runRefundBot } from '../../../examples/refund-bot/agent.ts'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { createShop, type Refund } from '../../../examples/refund-bot/shop.ts'
import { agentCase } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

const provider = await startScriptedProvider({ policy: refundModel(), seed: 1 })
// A plain client, created at module load: the plugin's setup file started the interceptor before.
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 })
const refunds: Refund[] = []

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log)
    appendFileSync(
      log,
      `${JSON.stringify({ requests: provider.requests.length, refunds: refunds.length })}\n`,
    )
})

test(
  'refund through the interceptor',
  agentCase(
    async (input: string) => {
      const shop = createShop()
      try {
        return await runRefundBot(input, { client, shop })
      } finally {
        refunds.push(...shop.refunds)
      }
    },
    {
      agent: 'refund-bot',
      input: 'Refund my order A17, it arrived broken',
      assert: (run) => {
        expect(run.llmCalls()).toHaveLength(3)
        expect(run.toolCalls('issue_refund')).toHaveLength(1)
      },
    },
  ),
)

test('a plain test that calls the model itself', async () => {
  // No agentCase: the test's own Session (opened by the plugin) records and replays the call.
  const completion = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'I want a refund' }],
  })
  expect(completion.choices[0]?.message.content).toContain('Which order')
})
