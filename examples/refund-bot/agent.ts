import type OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { tool } from '../../src/index.ts'
import type { Shop } from './shop.ts'

export const SYSTEM_PROMPT =
  'You are the refund assistant of a small shop. Look the order up with get_order before anything else. ' +
  'Refund damaged orders with issue_refund. Never refund more than the order total.'

export const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_order',
      description: 'Look up an order by its id',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'The order id, e.g. A17' } },
        required: ['order_id'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'issue_refund',
      description: 'Refund an amount in USD for an order. This moves money.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
        required: ['order_id', 'amount'],
      },
    },
  },
]

export interface RefundBotOptions {
  client: OpenAI
  shop: Shop
  model?: string
  /** The most model calls before the bot gives up. */
  maxSteps?: number
  /**
   * Stops the bot when `get_order` returns something that is not an order (`assertOrder`). Default
   * false: the result goes to the model whatever it is, as most agents do.
   */
  checkOrders?: boolean
}

/**
 * The bot's two tools over a shop, through crashlab's `tool()`: recorded during a recorded run, served
 * from the cassette in a replay, where the side-effect tool (`issue_refund`) never runs. Outside a
 * crashlab session they are plain calls.
 *
 * @example
 * const tools = refundTools(createShop())
 * await tools.get_order({ order_id: 'A17' })
 */
export function refundTools(shop: Shop) {
  return {
    get_order: tool((args: { order_id: string }) => shop.getOrder(args), {
      name: 'get_order',
      sideEffects: false,
    }),
    issue_refund: tool((args: { order_id: string; amount: number }) => shop.issueRefund(args), {
      name: 'issue_refund',
      sideEffects: true,
    }),
  }
}

/**
 * The demo agent: a plain OpenAI chat tool loop, written the way agents usually are, with nothing
 * crashlab-specific in it. It asks the model, runs the tools the model calls, and feeds the results
 * back until the model answers in text.
 *
 * @example
 * const answer = await runRefundBot('Refund my order A17, it arrived broken', { client: new OpenAI(), shop: createShop() })
 */
export async function runRefundBot(input: string, options: RefundBotOptions): Promise<string> {
  const { client, shop, model = 'gpt-4o-mini', maxSteps = 8, checkOrders = false } = options
  const tools = refundTools(shop)
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: input },
  ]
  for (let step = 0; step < maxSteps; step++) {
    const completion = await client.chat.completions.create({ model, messages, tools: TOOLS, temperature: 0 })
    const message = completion.choices[0]?.message
    if (!message) throw new Error('the model returned no choice')
    messages.push(message)
    const calls = message.tool_calls ?? []
    if (calls.length === 0) return message.content ?? ''
    for (const call of calls) {
      if (call.type !== 'function') continue
      const content = await runTool(tools, call.function.name, call.function.arguments)
      if (checkOrders && call.function.name === 'get_order') assertOrder(content)
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
  }
  throw new Error(`refund bot gave up after ${maxSteps} model calls`)
}

/**
 * The order lookup's result must be an order (or the error the tool reported): anything else — a
 * proxy's HTML page, an API that changed its shape — stops the bot rather than reach the model, which
 * would then refund against a total it never saw.
 */
function assertOrder(content: string): void {
  const order = JSON.parse(content) as { total?: unknown; error?: unknown } | string
  if (typeof order === 'object' && order !== null && (typeof order.total === 'number' || 'error' in order))
    return
  throw new TypeError(`get_order returned something that is not an order: ${content.slice(0, 60)}`)
}

/** Runs one tool call; a failing tool is reported to the model as text, as most agents do. */
async function runTool(
  tools: Record<string, (args: never) => unknown>,
  name: string,
  argsText: string,
): Promise<string> {
  try {
    const fn = tools[name]
    if (!fn) return JSON.stringify({ error: `unknown tool ${name}` })
    return JSON.stringify(await fn(JSON.parse(argsText) as never))
  } catch (err) {
    return JSON.stringify({ error: (err as Error).message })
  }
}
