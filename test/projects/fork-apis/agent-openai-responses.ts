// The fork-apis agent on the OpenAI Responses API (stateless: the whole conversation in `input`).
import OpenAI from 'openai'
import { type AgentInput, MODEL, SYSTEM, TOOL_DEFS, toolsFor } from './shared.ts'

const runTool = toolsFor('openai-responses')

export async function run(input: AgentInput): Promise<string> {
  const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${input.url}/v1`, maxRetries: 0 })
  const tools = TOOL_DEFS.map((t) => ({ type: 'function' as const, strict: false, ...t }))
  const items: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: input.question }]
  for (let turn = 0; turn < 4; turn++) {
    const answer = await client.responses.create({ model: MODEL, instructions: SYSTEM, input: items, tools })
    const call = answer.output.find((o) => o.type === 'function_call')
    if (call?.type !== 'function_call') return answer.output_text
    const result = await runTool(call.name, JSON.parse(call.arguments))
    items.push(
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(result) },
    )
  }
  return 'gave up'
}
