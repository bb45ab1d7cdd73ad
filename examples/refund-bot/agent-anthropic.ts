import type Anthropic from '@anthropic-ai/sdk'
import type { MessageParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages'
import { refundTools, SYSTEM_PROMPT } from './agent.ts'
import type { Shop } from './shop.ts'

/** The refund bot's two tools, in the Anthropic Messages API's shape. */
export const ANTHROPIC_TOOLS: Tool[] = [
  {
    name: 'get_order',
    description: 'Look up an order by its id',
    input_schema: {
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The order id, e.g. A17' } },
      required: ['order_id'],
    },
  },
  {
    name: 'issue_refund',
    description: 'Refund an amount in USD for an order. This moves money.',
    input_schema: {
      type: 'object',
      properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
      required: ['order_id', 'amount'],
    },
  },
]

/**
 * The refund bot on the Anthropic Messages API: the same tool loop as `runRefundBot`, with the same
 * tools and prompt, for `PROVIDER=anthropic npm run demo`.
 *
 * @example
 * const answer = await runAnthropicRefundBot('Refund my order A17, it arrived broken', { client: new Anthropic(), shop: createShop() })
 */
export async function runAnthropicRefundBot(
  input: string,
  options: { client: Anthropic; shop: Shop; model?: string; maxSteps?: number },
): Promise<string> {
  const { client, shop, model = 'claude-haiku-4-5', maxSteps = 8 } = options
  const tools: Record<string, (args: never) => unknown> = refundTools(shop)
  const messages: MessageParam[] = [{ role: 'user', content: input }]
  for (let step = 0; step < maxSteps; step++) {
    const reply = await client.messages.create({
      model,
      max_tokens: 512,
      system: SYSTEM_PROMPT,
      messages,
      tools: ANTHROPIC_TOOLS,
    })
    messages.push({ role: 'assistant', content: reply.content })
    const calls = reply.content.filter((b) => b.type === 'tool_use')
    if (calls.length === 0) return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    const results: ToolResultBlockParam[] = []
    for (const call of calls) {
      const fn = tools[call.name]
      let content: string
      let isError = false
      try {
        if (!fn) throw new Error(`unknown tool ${call.name}`)
        content = JSON.stringify(await fn(call.input as never))
      } catch (err) {
        content = JSON.stringify({ error: (err as Error).message })
        isError = true
      }
      results.push({ type: 'tool_result', tool_use_id: call.id, content, is_error: isError })
    }
    messages.push({ role: 'user', content: results })
  }
  throw new Error(`refund bot gave up after ${maxSteps} model calls`)
}
