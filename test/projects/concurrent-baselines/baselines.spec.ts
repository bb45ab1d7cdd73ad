import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, describe, expect, test } from 'vitest'
import { runRefundBot } from '../../../examples/refund-bot/agent.ts'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { createShop } from '../../../examples/refund-bot/shop.ts'
import { agentCase } from '../../../plugin/index.ts'
import { wrap } from '../../../src/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

// Latency makes the 24 runs interleave, so that each baseline is written or compared while other tests
// are between their own calls.
const provider = await startScriptedProvider({ policy: refundModel(), seed: 3, latencyMs: 5 })
const client = wrap(
  new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 }),
)

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log) appendFileSync(log, `${JSON.stringify({ requests: provider.requests.length, refunds: 0 })}\n`)
})

describe('24 baselines at once', () => {
  for (let i = 0; i < 24; i++) {
    const input = `Refund my order ${['A17', 'B42', 'C08'][i % 3]}, ticket #${i}`
    // Even tests use the test's own `expect`, odd ones the global `expect`: both must find their test.
    const local = i % 2 === 0
    test.concurrent(
      `ticket ${i}`,
      agentCase(
        async (text: string) => {
          await new Promise((r) => setTimeout(r, (i * 7) % 13))
          return runRefundBot(text, { client, shop: createShop() })
        },
        {
          agent: 'refund-bot',
          input,
          assert: async (run, ctx) => {
            // Let the other tests move on before this one looks at its baseline.
            await new Promise((r) => setTimeout(r, (i * 5) % 11))
            if (local) ctx.expect(run).toMatchAgentCase()
            else expect(run).toMatchAgentCase()
          },
        },
      ),
    )
  }
})
