import { createOpenAI } from '@ai-sdk/openai'
import { stepCountIs, streamText, tool } from 'ai'
import { z } from 'zod'
import { createShop, INSTRUCTIONS, type Shop } from '../shared/shop.ts'
import { GET_ORDER_DESCRIPTION, ISSUE_REFUND_DESCRIPTION, supportTools } from '../shared/tools.ts'

export interface SupportAgentOptions {
  /** The OpenAI-compatible base URL, with its `/v1`: the scripted provider's in the examples. */
  baseURL: string
  shop?: Shop
  model?: string
}

/**
 * A support agent on the Vercel AI SDK: `streamText` with two tools and a step limit, on the OpenAI
 * Responses model (`openai(model)`, the AI SDK's default for OpenAI). It streams, as a chat UI would,
 * and returns the text of the last step and the ids of the refunds it issued.
 *
 * @example
 * const answer = await runSupportAgent('Refund my order A17, it arrived broken', { baseURL: 'http://127.0.0.1:4000/v1' })
 */
export async function runSupportAgent(input: string, options: SupportAgentOptions) {
  // The provider reads `globalThis.fetch` at each call, not here: made before or after the
  // interceptor starts, its calls are seen. `apiKey` is any string: the scripted provider checks none.
  const openai = createOpenAI({ baseURL: options.baseURL, apiKey: 'sk-example-not-a-key' })
  const { getOrder, issueRefund } = supportTools(options.shop ?? createShop())
  const result = streamText({
    model: openai(options.model ?? 'gpt-4o-mini'),
    system: INSTRUCTIONS,
    prompt: input,
    tools: {
      get_order: tool({
        description: GET_ORDER_DESCRIPTION,
        inputSchema: z.object({ order_id: z.string().describe('The order id, e.g. A17') }),
        execute: (args) => getOrder(args),
      }),
      issue_refund: tool({
        description: ISSUE_REFUND_DESCRIPTION,
        inputSchema: z.object({ order_id: z.string(), amount: z.number() }),
        execute: (args) => issueRefund(args),
      }),
    },
    stopWhen: stepCountIs(5),
    // The SDK retries a 429 or a 5xx (its default, 2): crashTest() shows it survives one at every model call.
    maxRetries: 2,
  })
  let streamed = ''
  for await (const delta of result.textStream) streamed += delta
  return { answer: await result.text, streamed }
}
