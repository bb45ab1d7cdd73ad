import type OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { type NormalizedRequest, tool } from '../../../src/index.ts'

export interface Order {
  order_id: string
  status: string
  total: number
}

const ORDERS: Record<string, Order> = { A17: { order_id: 'A17', status: 'damaged', total: 49 } }

/** The bot's one tool, through crashlab's tool(): recorded when the test records, served in a replay. */
export const getOrder = tool(
  async (args: { order_id: string }): Promise<Order> => {
    const order = ORDERS[args.order_id]
    if (!order) throw new Error(`no order ${args.order_id}`)
    return order
  },
  { name: 'get_order', sideEffects: false },
)

/**
 * A small refund bot on the OpenAI SDK: asks the model, runs get_order when asked, reads the order's
 * status (an HTML page in place of the order has none: the bot crashes), and tells the model what
 * the tool said (a tool that threw is reported to the model, which the recording never saw).
 */
export async function refundBot(client: OpenAI, input: string): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You refund damaged orders. Look the order up with get_order first.' },
    { role: 'user', content: input },
  ]
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'get_order',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      },
    },
  ]
  for (let turn = 0; turn < 4; turn++) {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
    const message = completion.choices[0]?.message
    if (!message) throw new Error('the model sent no choice')
    messages.push(message)
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      let content: string
      try {
        const order = await getOrder(JSON.parse(call.function.arguments) as { order_id: string })
        content = JSON.stringify({
          order_id: order.order_id,
          status: order.status.toUpperCase(),
          total: order.total,
        })
      } catch (error) {
        if (error instanceof TypeError) throw error
        content = JSON.stringify({ error: (error as Error).message })
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
  }
  throw new Error('the bot gave up after 4 turns')
}

/** The model: looks the order up, then answers from what the tool said. */
export function policy(request: NormalizedRequest) {
  const last = request.messages.at(-1)
  const result = last?.parts.find((p) => p.type === 'tool_result')
  if (result?.type !== 'tool_result') return { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] }
  const order = JSON.parse(result.content) as { status?: string; total?: number; error?: string }
  if (order.error) return { text: `I could not look the order up: ${order.error}` }
  return { text: `Your order is ${order.status}: a refund of $${order.total} is on its way.` }
}
