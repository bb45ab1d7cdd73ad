// The agent of the fork fixture: an importable function (a `module` entry point) on the OpenAI SDK with
// two crashlab tools, a pure order lookup and a side-effect refund whose runs are counted on globalThis
// (shared by the test and the copy of this module that Vite's runner loads for a fork).
import OpenAI from 'openai'
import { tool } from '../../../src/engine/tool.ts'

export interface RefundRequest {
  question: string
  /** The provider the run was recorded against. */
  baseURL: string
}

const COUNTER = Symbol.for('crashlab.fork-fixture.refunds')
const counter = globalThis as { [COUNTER]?: { runs: number } }
counter[COUNTER] ??= { runs: 0 }

/** How many times `issue_refund` really ran in this process. */
export function refundRuns(): number {
  return counter[COUNTER]!.runs
}

const ORDERS: Record<string, { status: string; total: number }> = { A17: { status: 'broken', total: 10 } }

const getOrder = tool(async ({ order_id }: { order_id: string }) => ({ order_id, ...ORDERS[order_id] }), {
  name: 'get_order',
  sideEffects: false,
})

const issueRefund = tool(
  async ({ order_id, amount }: { order_id: string; amount: number }) => {
    counter[COUNTER]!.runs++
    return { order_id, refunded: amount }
  },
  { name: 'issue_refund', sideEffects: true },
)

const TOOLS = ['get_order', 'issue_refund'].map((name) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: {} } },
}))

/** Looks the order up, refunds it, and returns the model's last answer. A tool's error goes back to the model. */
export async function refundOrder(input: RefundRequest): Promise<string> {
  const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: input.baseURL, maxRetries: 0 })
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are the refund bot.' },
    { role: 'user', content: input.question },
  ]
  for (let turn = 0; turn < 4; turn++) {
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS })
    const message = answer.choices[0]!.message
    const call = message.tool_calls?.[0]
    if (call?.type !== 'function') return message.content ?? ''
    const args = JSON.parse(call.function.arguments) as { order_id: string; amount: number }
    let content: string
    try {
      const result = call.function.name === 'get_order' ? await getOrder(args) : await issueRefund(args)
      content = JSON.stringify(result)
    } catch (error) {
      content = JSON.stringify({ error: (error as Error).message })
    }
    messages.push(message, { role: 'tool', tool_call_id: call.id, content })
  }
  return 'gave up'
}
