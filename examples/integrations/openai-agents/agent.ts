import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents'
import OpenAI from 'openai'
import { z } from 'zod'
import { createShop, INSTRUCTIONS, type Shop } from '../shared/shop.ts'
import { GET_ORDER_DESCRIPTION, ISSUE_REFUND_DESCRIPTION, supportTools } from '../shared/tools.ts'

// The SDK exports traces to https://api.openai.com/v1/traces/ingest (a fixed URL: the client's baseURL
// does not move it). It is off when NODE_ENV=test, which Vitest sets, but say so: a script or a server
// that runs this agent outside Vitest would upload every run. See README.md.
setTracingDisabled(true)

export interface SupportAgentOptions {
  /** The OpenAI-compatible base URL, with its `/v1`: the scripted provider's in the examples. */
  baseURL: string
  shop?: Shop
  model?: string
}

/** The support agent: instructions and two function tools, the bodies of which are crashlab tools. */
export function createSupportAgent(shop: Shop, model: string) {
  const { getOrder, issueRefund } = supportTools(shop)
  return new Agent({
    name: 'support',
    instructions: INSTRUCTIONS,
    model,
    tools: [
      tool({
        name: 'get_order',
        description: GET_ORDER_DESCRIPTION,
        parameters: z.object({ order_id: z.string().describe('The order id, e.g. A17') }),
        execute: async (args) => JSON.stringify(await getOrder(args)),
      }),
      tool({
        name: 'issue_refund',
        description: ISSUE_REFUND_DESCRIPTION,
        parameters: z.object({ order_id: z.string(), amount: z.number() }),
        execute: async (args) => JSON.stringify(await issueRefund(args)),
      }),
    ],
  })
}

/**
 * Runs the support agent on the OpenAI Agents SDK with a `Runner` of its own, on the Responses API (the
 * SDK's default), with an OpenAI client pointed at `baseURL`. Returns the final answer and the tools
 * the SDK says it called.
 *
 * @example
 * const { answer } = await runSupportAgent('Refund my order A17, it arrived broken', { baseURL: 'http://127.0.0.1:4000/v1' })
 */
export async function runSupportAgent(input: string, options: SupportAgentOptions) {
  // The OpenAI SDK keeps the `fetch` it finds in its constructor: make the client after the interceptor
  // is up (under the crashlab plugin, anywhere in a test file is after). maxRetries 0: a retry is
  // another model call, which a replay would have to match.
  const openAIClient = new OpenAI({ baseURL: options.baseURL, apiKey: 'sk-example-not-a-key', maxRetries: 0 })
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient }) })
  const agent = createSupportAgent(options.shop ?? createShop(), options.model ?? 'gpt-4o-mini')
  const result = await runner.run(agent, input, { maxTurns: 6 })
  const tools = result.newItems
    .filter((item) => item.type === 'tool_call_item')
    .map((item) => (item.rawItem as { name?: string }).name)
  return { answer: result.finalOutput ?? '', tools }
}
