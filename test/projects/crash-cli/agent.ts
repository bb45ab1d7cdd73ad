// The agent of the crash-test fixture: the fork fixture's refund bot, written as agents often are — the
// OpenAI SDK retries what it retries (maxRetries: 2), a tool's error goes back to the model, and the
// code reads the order's total from `get_order`'s result before anything else (so a result that is not
// an order, such as a gateway's HTML page, crashes it).
import OpenAI from 'openai'
import { tool } from '../../../src/engine/tool.ts'

export interface RefundRequest {
  question: string
  /** The provider the run was recorded against. */
  baseURL: string
}

const ORDERS: Record<string, { status: string; total: number }> = { A17: { status: 'broken', total: 10 } }

const getOrder = tool(async ({ order_id }: { order_id: string }) => ({ order_id, ...ORDERS[order_id] }), {
  name: 'get_order',
  sideEffects: false,
})

const issueRefund = tool(
  async ({ order_id, amount }: { order_id: string; amount: number }) => ({ order_id, refunded: amount }),
  { name: 'issue_refund', sideEffects: true },
)

const TOOLS = ['get_order', 'issue_refund'].map((name) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: {} } },
}))

/** Looks the order up, refunds it, and returns the model's last answer. */
export async function refundOrder(input: RefundRequest): Promise<string> {
  const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: input.baseURL, maxRetries: 2 })
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
      if (call.function.name === 'get_order') {
        const order = await getOrder(args)
        // The refund is never more than the order's total: read it before going on.
        if (typeof order?.total !== 'number')
          throw new TypeError(`get_order returned no total for ${args.order_id}`)
        content = JSON.stringify(order)
      } else content = JSON.stringify(await issueRefund(args))
    } catch (error) {
      if (error instanceof TypeError) throw error
      content = JSON.stringify({ error: (error as Error).message })
    }
    messages.push(message, { role: 'tool', tool_call_id: call.id, content })
  }
  return 'gave up'
}
