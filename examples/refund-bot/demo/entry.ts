import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { wrap } from '../../../src/index.ts'
import { runRefundBot } from '../agent.ts'
import { runAnthropicRefundBot } from '../agent-anthropic.ts'
import '../oracles.ts'
import { createShop } from '../shop.ts'

/**
 * The demo's agent as an importable entry point, so that `crashlab replay <id>` can run it again:
 * the refund bot behind a retry loop (as many agents have one), with a wrapped OpenAI (or, with
 * `provider: 'anthropic'`, Anthropic) client on
 * `DEMO_BASE_URL` (in a replay nothing needs to answer there: every call is served from the run).
 *
 * @example
 * await demoRefundBot({ message: 'Refund my order A17, it arrived broken', retries: 2 })
 */
export async function demoRefundBot(input: {
  message: string
  retries: number
  provider?: 'openai' | 'anthropic'
}): Promise<string> {
  const baseURL = process.env.DEMO_BASE_URL ?? 'http://127.0.0.1:9/v1'
  const bot =
    input.provider === 'anthropic'
      ? (message: string) =>
          runAnthropicRefundBot(message, {
            // The Anthropic SDK adds /v1 itself.
            client: wrap(
              new Anthropic({
                apiKey: 'sk-ant-demo-not-a-real-key',
                baseURL: baseURL.replace(/\/v1$/, ''),
                maxRetries: 0,
              }),
            ),
            shop: createShop(),
          })
      : (message: string) =>
          runRefundBot(message, {
            client: wrap(new OpenAI({ apiKey: 'sk-demo-not-a-real-key', baseURL, maxRetries: 0 })),
            shop: createShop(),
          })
  let lastError: unknown
  for (let attempt = 0; attempt <= input.retries; attempt++) {
    try {
      return await bot(input.message)
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}
