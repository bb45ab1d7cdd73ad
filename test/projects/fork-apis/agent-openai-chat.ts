// The fork-apis agent on OpenAI Chat Completions.
import OpenAI from 'openai'
import { type AgentInput, MODEL, SYSTEM, TOOL_DEFS, toolsFor } from './shared.ts'

const runTool = toolsFor('openai-chat')

export async function run(input: AgentInput): Promise<string> {
  const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${input.url}/v1`, maxRetries: 0 })
  const tools = TOOL_DEFS.map((t) => ({ type: 'function' as const, function: t }))
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: input.question },
  ]
  for (let turn = 0; turn < 4; turn++) {
    const answer = await client.chat.completions.create({ model: MODEL, messages, tools })
    const message = answer.choices[0]!.message
    const call = message.tool_calls?.[0]
    if (call?.type !== 'function') return message.content ?? ''
    const result = await runTool(call.function.name, JSON.parse(call.function.arguments))
    messages.push(message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
  }
  return 'gave up'
}
