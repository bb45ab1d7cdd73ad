// The agent of the fixture, on the OpenAI Agents SDK: one function tool (a crashlab tool, served from
// the cassette in a replay) and a Runner of its own whose OpenAI client points at the scripted provider.
import { Agent, tool as agentTool, OpenAIProvider, Runner } from '@openai/agents'
import OpenAI from 'openai'
import { z } from 'zod'
import { tool } from '../../../src/index.ts'

const ORDERS: Record<string, string> = { A17: 'shipped on Monday', A18: 'lost in transit' }

const getOrder = tool(
  async (args: { order_id: string }) => ({
    order_id: args.order_id,
    status: ORDERS[args.order_id] ?? 'unknown',
  }),
  { name: 'get_order', sideEffects: false },
)

/** Answers an order question through the Agents SDK's Runner, with the model at `baseURL`. */
export async function answerOrder(question: string, baseURL: string): Promise<string> {
  // Made here, after the interceptor is up: the OpenAI SDK keeps the `fetch` it finds in its constructor.
  const openAIClient = new OpenAI({ baseURL, apiKey: 'sk-fixture-not-a-key', maxRetries: 0 })
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient }) })
  const agent = new Agent({
    name: 'order-bot',
    instructions: 'Answer questions about orders. Look the order up first.',
    model: 'gpt-4o-mini',
    tools: [
      agentTool({
        name: 'get_order',
        description: 'Look up an order by its id',
        parameters: z.object({ order_id: z.string() }),
        execute: async (args) => JSON.stringify(await getOrder(args)),
      }),
    ],
  })
  const result = await runner.run(agent, question, { maxTurns: 4 })
  return result.finalOutput ?? ''
}
