import type { JsonObject } from '../../case/schema/json.ts'
import type { WireRequest } from '../../case/schema/step.ts'

/**
 * The shared test conversation (`test-conversation.ts`) as the two OpenAI APIs carry it, written as
 * the official SDK sends it on the third model call of a refund agent: the assistant turn is echoed
 * back as the SDK returned it (`refusal: null` and `annotations` in chat; server item ids and status
 * in Responses), and the SDK's own headers are present, as in a real recording.
 */

const TOOL_PARAMETERS: JsonObject = {
  type: 'object',
  properties: { order_id: { type: 'string', description: 'The order id, e.g. A17' } },
  required: ['order_id'],
}

const SDK_HEADERS: Record<string, string> = {
  accept: 'application/json',
  'content-type': 'application/json',
  'user-agent': 'OpenAI/JS 7.59.0',
  'x-stainless-arch': 'x64',
  'x-stainless-lang': 'js',
  'x-stainless-os': 'Linux',
  'x-stainless-package-version': '7.59.0',
  'x-stainless-retry-count': '0',
  'x-stainless-runtime': 'node',
  'x-stainless-runtime-version': 'v22.23.3',
}

const SYSTEM = 'You are a refund assistant. Never refund more than the order total.'
const ORDER = '{"order_id":"A17","status":"delivered","total":49}'

/** The conversation as a Chat Completions request (system prompt as a `developer` message). */
export const OPENAI_CHAT_CONVERSATION: WireRequest = {
  method: 'POST',
  url: 'https://api.openai.com/v1/chat/completions',
  headers: SDK_HEADERS,
  body: {
    model: 'gpt-5-mini',
    messages: [
      { role: 'developer', content: SYSTEM },
      { role: 'user', content: 'Refund my order A17, it arrived broken' },
      {
        role: 'assistant',
        content: 'Let me look up the order.',
        refusal: null,
        annotations: [],
        tool_calls: [
          {
            id: 'call_A17',
            type: 'function',
            function: { name: 'get_order', arguments: '{"order_id":"A17"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_A17', content: ORDER },
      { role: 'assistant', content: 'I have refunded $49 for order A17.', refusal: null, annotations: [] },
      { role: 'user', content: 'Thanks!' },
    ],
    tools: [
      {
        type: 'function',
        function: { name: 'get_order', description: 'Look up an order by id', parameters: TOOL_PARAMETERS },
      },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
  },
}

/** The conversation as a Responses request (system prompt as `instructions`, the assistant turn as output items). */
export const OPENAI_RESPONSES_CONVERSATION: WireRequest = {
  method: 'POST',
  url: 'https://api.openai.com/v1/responses',
  headers: SDK_HEADERS,
  body: {
    model: 'gpt-5-mini',
    instructions: SYSTEM,
    input: [
      { role: 'user', content: 'Refund my order A17, it arrived broken' },
      {
        id: 'msg_68a1c0f2d4e48190a2b1c3d4e5f60718',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Let me look up the order.' }],
      },
      {
        id: 'fc_68a1c0f3a0c08190b7e6d5c4b3a29180',
        type: 'function_call',
        status: 'completed',
        arguments: '{"order_id":"A17"}',
        call_id: 'call_A17',
        name: 'get_order',
      },
      { type: 'function_call_output', call_id: 'call_A17', output: ORDER },
      {
        id: 'msg_68a1c0f5e1f48190c0d1e2f3a4b5c6d7',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [
          { type: 'output_text', annotations: [], logprobs: [], text: 'I have refunded $49 for order A17.' },
        ],
      },
      { role: 'user', content: 'Thanks!' },
    ],
    tools: [
      {
        type: 'function',
        name: 'get_order',
        description: 'Look up an order by id',
        parameters: TOOL_PARAMETERS,
        strict: false,
      },
    ],
    store: false,
  },
}
