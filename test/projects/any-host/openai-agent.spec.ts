import OpenAI from 'openai'
import { afterAll, expect, test } from 'vitest'
import { runRefundBot } from '../../../examples/refund-bot/agent.ts'
import { createShop, type Refund } from '../../../examples/refund-bot/shop.ts'
import { agentCase } from '../../../plugin/index.ts'
import { log, modelServer } from './provider.ts'

// The real OpenAI SDK, its defaults kept (retries included), pointed at a model server on loopback.
const server = await modelServer()
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${server.url}/v1` })
const refunds: Refund[] = []

afterAll(async () => {
  log({ file: 'openai-agent', url: server.url, requests: server.requests(), refunds: refunds.length })
  await server.close()
})

test(
  'refund through a model server on loopback',
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
      input: process.env.FIXTURE_PROMPT ?? 'Refund my order A17, it arrived broken',
      assert: (run) => {
        expect(run.llmCalls()).toHaveLength(3)
        expect(run.toolCalls('issue_refund')).toHaveLength(1)
      },
    },
  ),
)
