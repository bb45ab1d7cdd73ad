// The agent of the replay fixture: an importable function, as `record(..., { entryPoint })` names it.
// It uses the OpenAI SDK and nothing of crashlab: a replay serves its calls through the interceptor.
import OpenAI from 'openai'

export interface OrderQuestion {
  question: string
  /** The provider the run was recorded against (a replay never reaches it). */
  baseURL: string
}

const ORDERS: Record<string, string> = { A17: 'shipped on Monday', A18: 'lost in transit' }

/** Asks the model, runs the order lookup it calls for, and returns the model's answer. */
export async function answerOrder(input: OrderQuestion): Promise<string> {
  const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: input.baseURL, maxRetries: 0 })
  // Set by the parent test to make the agent diverge from its recording.
  const question = input.question + (process.env.FIXTURE_INPUT_SUFFIX ?? '')
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'get_order',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      },
    },
  ]
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
  const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
  const call = first.choices[0]?.message.tool_calls?.[0]
  if (call?.type !== 'function') return first.choices[0]?.message.content ?? ''
  const { order_id } = JSON.parse(call.function.arguments) as { order_id: string }
  messages.push(first.choices[0]!.message, {
    role: 'tool',
    tool_call_id: call.id,
    content: JSON.stringify({ order_id, status: ORDERS[order_id] ?? 'unknown' }),
  })
  const second = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
  return second.choices[0]?.message.content ?? ''
}
