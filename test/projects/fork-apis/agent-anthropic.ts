// The fork-apis agent on Anthropic Messages.
import Anthropic from '@anthropic-ai/sdk'
import { type AgentInput, MODEL, SYSTEM, TOOL_DEFS, toolsFor } from './shared.ts'

const runTool = toolsFor('anthropic')

export async function run(input: AgentInput): Promise<string> {
  const client = new Anthropic({ apiKey: 'sk-ant-fixture-not-a-key', baseURL: input.url, maxRetries: 0 })
  const tools = TOOL_DEFS.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Tool.InputSchema,
  }))
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: input.question }]
  for (let turn = 0; turn < 4; turn++) {
    const answer = await client.messages.create({
      model: MODEL,
      max_tokens: 512,
      system: SYSTEM,
      messages,
      tools,
    })
    const call = answer.content.find((b) => b.type === 'tool_use')
    if (call?.type !== 'tool_use')
      return answer.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    const result = await runTool(call.name, call.input)
    messages.push(
      { role: 'assistant', content: answer.content },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: JSON.stringify(result) }],
      },
    )
  }
  return 'gave up'
}
