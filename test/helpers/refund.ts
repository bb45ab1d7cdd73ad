import type { JsonObject } from '../../src/case/schema/json.ts'
import type { Message, ToolDefinition } from '../../src/case/schema/normalized.ts'

/** The refund conversation every SDK contract test speaks, and what it normalizes to. */

export const SYSTEM = 'You are a refund assistant. Never refund more than the order total.'
export const QUESTION = 'Refund my order A17, it arrived broken'
export const ORDER = { order_id: 'A17', status: 'delivered', total: 49 }
export const ORDER_JSON = JSON.stringify(ORDER)
export const FINAL_TEXT = 'I have refunded $49 for order A17.'

/** The tool's input, as JSON Schema. */
export const ORDER_PARAMS: JsonObject = {
  type: 'object',
  properties: { order_id: { type: 'string', description: 'The order id, e.g. A17' } },
  required: ['order_id'],
  additionalProperties: false,
}

export const GET_ORDER: ToolDefinition = {
  name: 'get_order',
  description: 'Look up an order by id',
  parameters: ORDER_PARAMS,
}

/** The user's question, normalized. */
export const USER_MESSAGE: Message = { role: 'user', parts: [{ type: 'text', text: QUESTION }] }

/** The assistant's tool call `id`, normalized, with the text the model said before it (if any). */
export function toolCallMessage(id: string, text?: string): Message {
  return {
    role: 'assistant',
    parts: [
      ...(text === undefined ? [] : [{ type: 'text' as const, text }]),
      { type: 'tool_call', id, name: 'get_order', args: { order_id: 'A17' } },
    ],
  }
}

/** The tool's result for call `id`, normalized. */
export function toolResultMessage(id: string): Message {
  return {
    role: 'tool',
    parts: [{ type: 'tool_result', id, name: 'get_order', content: ORDER_JSON, isError: false }],
  }
}
