// The fork-apis agent on Gemini generateContent.
import { type Content, GoogleGenAI } from '@google/genai'
import { type AgentInput, MODEL, SYSTEM, TOOL_DEFS, toolsFor } from './shared.ts'

const runTool = toolsFor('gemini')

export async function run(input: AgentInput): Promise<string> {
  const client = new GoogleGenAI({ apiKey: 'fixture-not-a-key', httpOptions: { baseUrl: input.url } })
  const functionDeclarations = TOOL_DEFS.map((t) => ({
    name: t.name,
    description: t.description,
    parametersJsonSchema: t.parameters,
  }))
  const contents: Content[] = [{ role: 'user', parts: [{ text: input.question }] }]
  for (let turn = 0; turn < 4; turn++) {
    const answer = await client.models.generateContent({
      model: MODEL,
      contents,
      config: { systemInstruction: SYSTEM, tools: [{ functionDeclarations }] },
    })
    const call = answer.functionCalls?.[0]
    if (!call?.name) return answer.text ?? ''
    const result = await runTool(call.name, call.args)
    contents.push(answer.candidates![0]!.content!, {
      role: 'user',
      parts: [{ functionResponse: { ...(call.id && { id: call.id }), name: call.name, response: result } }],
    })
  }
  return 'gave up'
}
