import type { Message, Part, ToolDefinition } from '../../case/schema/normalized.ts'

/**
 * One conversation, normalized: a system prompt, a user turn, an assistant turn with text and a tool
 * call, the tool's result, and a final assistant answer; one tool. Each adapter's tests write this
 * conversation in their API's wire format and must normalize it to exactly these values, so the four
 * APIs are proven to agree (`same-conversation.test.ts` checks all four side by side).
 *
 * Conventions the adapters share, which this fixture pins down:
 * - the system prompt is `system`, never a message;
 * - every tool result is its own `tool` message, and carries the called tool's `name` (from the wire,
 *   or from the matching tool call earlier in the conversation);
 * - a tool result's `content` is text: a structured result (Gemini's `response` object) is JSON text.
 */
export const CONVERSATION_SYSTEM: Part[] = [
  { type: 'text', text: 'You are a refund assistant. Never refund more than the order total.' },
]

export const CONVERSATION_TOOLS: ToolDefinition[] = [
  {
    name: 'get_order',
    description: 'Look up an order by id',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The order id, e.g. A17' } },
      required: ['order_id'],
    },
  },
]

export const CONVERSATION_MESSAGES: Message[] = [
  { role: 'user', parts: [{ type: 'text', text: 'Refund my order A17, it arrived broken' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'text', text: 'Let me look up the order.' },
      { type: 'tool_call', id: 'call_A17', name: 'get_order', args: { order_id: 'A17' } },
    ],
  },
  {
    role: 'tool',
    parts: [
      {
        type: 'tool_result',
        id: 'call_A17',
        name: 'get_order',
        content: '{"order_id":"A17","status":"delivered","total":49}',
        isError: false,
      },
    ],
  },
  { role: 'assistant', parts: [{ type: 'text', text: 'I have refunded $49 for order A17.' }] },
  { role: 'user', parts: [{ type: 'text', text: 'Thanks!' }] },
]
