import type { WireRequest } from '../../case/schema/step.ts'

/**
 * The shared conversation of `test-conversation.ts` as the Anthropic SDK and the Gemini SDK send it:
 * realistic request bodies that must normalize to exactly CONVERSATION_SYSTEM, CONVERSATION_MESSAGES
 * and CONVERSATION_TOOLS.
 */

/**
 * The conversation as `client.messages.create()` sends it: system as a string, the tool result inside
 * the user turn that answers it, the follow-up user text as its own turn.
 *
 * @example
 * anthropicMessages.normalizeRequest(ANTHROPIC_CONVERSATION).messages // CONVERSATION_MESSAGES
 */
export const ANTHROPIC_CONVERSATION: WireRequest = {
  method: 'POST',
  url: 'https://api.anthropic.com/v1/messages',
  headers: {
    'anthropic-version': '2023-06-01',
    'content-type': 'application/json',
    'user-agent': 'Anthropic/JS 1.14.0',
    'x-stainless-lang': 'js',
  },
  body: {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: 'You are a refund assistant. Never refund more than the order total.',
    messages: [
      { role: 'user', content: 'Refund my order A17, it arrived broken' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look up the order.' },
          { type: 'tool_use', id: 'call_A17', name: 'get_order', input: { order_id: 'A17' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'call_A17',
            content: '{"order_id":"A17","status":"delivered","total":49}',
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'I have refunded $49 for order A17.' }] },
      { role: 'user', content: 'Thanks!' },
    ],
    tools: [
      {
        name: 'get_order',
        description: 'Look up an order by id',
        input_schema: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'The order id, e.g. A17' } },
          required: ['order_id'],
        },
      },
    ],
  },
}

/**
 * The conversation as `ai.models.generateContent()` sends it: the system prompt as
 * `systemInstruction`, the call and its response carrying the same id, the structured tool result as
 * the function response's `response` object.
 *
 * @example
 * gemini.normalizeRequest(GEMINI_CONVERSATION).messages // CONVERSATION_MESSAGES
 */
export const GEMINI_CONVERSATION: WireRequest = {
  method: 'POST',
  url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
  headers: {
    'content-type': 'application/json',
    'x-goog-api-client': 'google-genai-sdk/3.3.0 gl-node/22.23.3',
  },
  body: {
    contents: [
      { role: 'user', parts: [{ text: 'Refund my order A17, it arrived broken' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look up the order.' },
          { functionCall: { id: 'call_A17', name: 'get_order', args: { order_id: 'A17' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call_A17',
              name: 'get_order',
              response: { order_id: 'A17', status: 'delivered', total: 49 },
            },
          },
        ],
      },
      { role: 'model', parts: [{ text: 'I have refunded $49 for order A17.' }] },
      { role: 'user', parts: [{ text: 'Thanks!' }] },
    ],
    systemInstruction: {
      role: 'user',
      parts: [{ text: 'You are a refund assistant. Never refund more than the order total.' }],
    },
    tools: [
      {
        functionDeclarations: [
          {
            name: 'get_order',
            description: 'Look up an order by id',
            parameters: {
              type: 'object',
              properties: { order_id: { type: 'string', description: 'The order id, e.g. A17' } },
              required: ['order_id'],
            },
          },
        ],
      },
    ],
    generationConfig: {},
  },
}
