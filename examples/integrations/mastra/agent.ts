import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { createShop, INSTRUCTIONS, type Shop } from '../shared/shop.ts'
import { GET_ORDER_DESCRIPTION, ISSUE_REFUND_DESCRIPTION, supportTools } from '../shared/tools.ts'

export interface SupportAgentOptions {
  /** The OpenAI-compatible base URL, with its `/v1`: the scripted provider's in the examples. */
  baseURL: string
  shop?: Shop
  model?: string
}

/** The support agent: instructions, Mastra's model router pointed at `baseURL`, two tools. */
export function createSupportAgent(options: SupportAgentOptions) {
  const { getOrder, issueRefund } = supportTools(options.shop ?? createShop())
  return new Agent({
    id: 'support',
    name: 'support',
    instructions: INSTRUCTIONS,
    // The model router with an explicit `url`: an OpenAI-compatible endpoint, no provider package and
    // no OPENAI_API_KEY. (An AI SDK model object, `createOpenAI({ baseURL })(id)`, works too.)
    model: {
      id: `openai/${options.model ?? 'gpt-4o-mini'}`,
      url: options.baseURL,
      apiKey: 'sk-example-not-a-key',
    },
    tools: {
      get_order: createTool({
        id: 'get_order',
        description: GET_ORDER_DESCRIPTION,
        inputSchema: z.object({ order_id: z.string().describe('The order id, e.g. A17') }),
        execute: (input) => getOrder(input),
      }),
      issue_refund: createTool({
        id: 'issue_refund',
        description: ISSUE_REFUND_DESCRIPTION,
        inputSchema: z.object({ order_id: z.string(), amount: z.number() }),
        execute: (input) => issueRefund(input),
      }),
    },
  })
}

/**
 * Runs the support agent on Mastra: a standalone `Agent` (no `Mastra` instance, so no storage, memory
 * or observability exporters) and `agent.generate()` with a step limit. Returns the final text and the
 * tools Mastra says it called.
 *
 * @example
 * const { answer } = await runSupportAgent('Refund my order A17, it arrived broken', { baseURL: 'http://127.0.0.1:4000/v1' })
 */
export async function runSupportAgent(input: string, options: SupportAgentOptions) {
  const agent = createSupportAgent(options)
  const result = await agent.generate(input, { maxSteps: 5 })
  return { answer: result.text, tools: result.toolCalls.map((c) => c.payload.toolName) }
}
