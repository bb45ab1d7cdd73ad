// The agent of the verify fixture: a support bot (a `module` entry point) on the OpenAI SDK that looks an
// order up with a pure crashlab tool and answers. Its oracle, registered when the module loads, wants
// the answer to name the order id: the fixture's model does that only when the system prompt asks.
import OpenAI from 'openai'
import { check } from '../../../src/checks/oracles/check.ts'
import { tool } from '../../../src/engine/tool.ts'

export interface SupportRequest {
  question: string
  baseURL: string
  /** An extra line of the system prompt (the "policy"), for recording runs that already follow it. */
  rule?: string
}

const getOrder = tool(async ({ order_id }: { order_id: string }) => ({ order_id, status: 'shipped' }), {
  name: 'get_order',
  sideEffects: false,
})

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_order',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  },
]

check('support-bot', function answerNamesTheOrder(run) {
  const output = String(run.run.output ?? '')
  return output.includes('A17') || `the answer does not name order A17: ${output}`
})

/** Looks the order up and returns the model's answer. */
export async function answerSupport(input: SupportRequest): Promise<string> {
  const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: input.baseURL, maxRetries: 0 })
  const system = ['You are the support bot.', ...(input.rule ? [input.rule] : [])].join('\n')
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: system },
    { role: 'user', content: input.question },
  ]
  for (let turn = 0; turn < 3; turn++) {
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS })
    const message = answer.choices[0]!.message
    const call = message.tool_calls?.[0]
    if (call?.type !== 'function') return message.content ?? ''
    const result = await getOrder(JSON.parse(call.function.arguments) as { order_id: string })
    messages.push(message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
  }
  return 'gave up'
}
