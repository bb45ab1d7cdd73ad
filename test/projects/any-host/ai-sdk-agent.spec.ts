import { createOpenAI } from '@ai-sdk/openai'
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import { afterAll, expect, test } from 'vitest'
import { refundTools, SYSTEM_PROMPT } from '../../../examples/refund-bot/agent.ts'
import { createShop } from '../../../examples/refund-bot/shop.ts'
import { agentCase } from '../../../plugin/index.ts'
import { log, modelServer } from './provider.ts'

// The Vercel AI SDK with its defaults (two retries with backoff on what it deems retryable), on a
// model server on loopback. `attempts` counts every request the SDK made, retries included.
const server = await modelServer()
let attempts = 0
const openai = createOpenAI({
  apiKey: 'sk-fixture-not-a-key',
  baseURL: `${server.url}/v1`,
  fetch: (input, init) => {
    attempts++
    return globalThis.fetch(input, init)
  },
})

afterAll(async () => {
  log({ file: 'ai-sdk-agent', url: server.url, requests: server.requests(), attempts })
  await server.close()
})

test(
  'refund with the AI SDK',
  agentCase(
    async (input: string) => {
      const tools = refundTools(createShop())
      const result = await generateText({
        model: openai.chat('gpt-4o-mini'),
        system: SYSTEM_PROMPT,
        prompt: input,
        stopWhen: stepCountIs(5),
        tools: {
          get_order: tool({
            description: 'Look up an order by its id',
            inputSchema: jsonSchema<{ order_id: string }>({
              type: 'object',
              properties: { order_id: { type: 'string' } },
              required: ['order_id'],
            }),
            execute: (args: { order_id: string }) => tools.get_order(args),
          }),
          issue_refund: tool({
            description: 'Refund an amount in USD for an order.',
            inputSchema: jsonSchema<{ order_id: string; amount: number }>({
              type: 'object',
              properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
              required: ['order_id', 'amount'],
            }),
            execute: (args: { order_id: string; amount: number }) => tools.issue_refund(args),
          }),
        },
      })
      return result.text
    },
    {
      agent: 'refund-bot-ai-sdk',
      input: process.env.FIXTURE_PROMPT ?? 'Refund my order A17, it arrived broken',
      assert: (run) => {
        expect(run.llmCalls()).toHaveLength(3)
        expect(run.toolCalls('issue_refund')).toHaveLength(1)
      },
    },
  ),
)
