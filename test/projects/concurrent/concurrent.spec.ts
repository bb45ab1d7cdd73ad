import { appendFileSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, describe, expect, test } from 'vitest'
import { runRefundBot } from '../../../examples/refund-bot/agent.ts'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { createShop } from '../../../examples/refund-bot/shop.ts'
import { agentCase } from '../../../plugin/index.ts'
import { wrap } from '../../../src/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'

// Latency makes the 24 runs interleave: each test's calls must still land in its own cassette.
const provider = await startScriptedProvider({ policy: refundModel(), seed: 2, latencyMs: 5 })
const plainClient = new OpenAI({
  apiKey: 'sk-fixture-not-a-key',
  baseURL: `${provider.url}/v1`,
  maxRetries: 0,
})
// FIXTURE_INTERCEPT=1: no wrap, the interceptor must see every call of every concurrent test.
const client = process.env.FIXTURE_INTERCEPT ? plainClient : wrap(plainClient)
let sideEffects = 0

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log)
    appendFileSync(log, `${JSON.stringify({ requests: provider.requests.length, refunds: sideEffects })}\n`)
})

describe('24 refunds at once', () => {
  for (let i = 0; i < 24; i++) {
    const input = `Refund my order ${['A17', 'B42', 'C08'][i % 3]}, ticket #${i}`
    test.concurrent(
      `ticket ${i}`,
      agentCase(
        async (text: string) => {
          await new Promise((r) => setTimeout(r, (i * 7) % 13))
          const shop = createShop()
          const answer = await runRefundBot(text, { client, shop })
          sideEffects += shop.refunds.length
          return answer
        },
        {
          agent: 'refund-bot',
          input,
          assert: (run) => {
            expect(run.input).toBe(input)
            for (const step of run.llmCalls())
              expect(JSON.stringify(step.request.wire.body)).toContain(`ticket #${i}"`)
          },
        },
      ),
    )
  }
})
