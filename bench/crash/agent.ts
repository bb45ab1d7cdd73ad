// The agent of the crash-matrix benchmark, run again by `runCrashMatrix` as a `module` entry point: a
// catalogue bot that looks five items up, one per turn, on the OpenAI SDK (with its retries, maxRetries: 2)
// and a pure `get_item` tool. Its recorded run is 10 steps: model call, tool call, five times over. A
// tool's error goes back to the model, as agents often do it.
import OpenAI from 'openai'
import type { NormalizedRequest } from '../../src/case/schema/normalized.ts'
import { tool } from '../../src/engine/tool.ts'
import type { ScriptedTurn } from '../../src/testing/index.ts'

export interface ItemsRequest {
  question: string
  /** The provider the run was recorded against. */
  baseURL: string
}

/** The model calls the agent makes at most: each asks for one item, so the run has 5 × 2 steps. */
export const TURNS = 5

const getItem = tool(
  async ({ id }: { id: string }) => ({ id, name: `Item ${id}`, price: 10 + id.length, in_stock: true }),
  { name: 'get_item', sideEffects: false },
)

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_item',
      description: 'Looks an item of the catalogue up by its id.',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
]

/** Looks items up until the model answers or `TURNS` model calls were made; the last answer or the items. */
export async function lookUpItems(input: ItemsRequest): Promise<string> {
  const client = new OpenAI({ apiKey: 'sk-bench-not-a-key', baseURL: input.baseURL, maxRetries: 2 })
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are the catalogue bot. Look every item up before you answer.' },
    { role: 'user', content: input.question },
  ]
  const found: string[] = []
  for (let turn = 0; turn < TURNS; turn++) {
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS })
    const message = answer.choices[0]!.message
    const call = message.tool_calls?.[0]
    if (call?.type !== 'function') return message.content ?? ''
    let content: string
    try {
      content = JSON.stringify(await getItem(JSON.parse(call.function.arguments) as { id: string }))
    } catch (error) {
      content = JSON.stringify({ error: (error as Error).message })
    }
    found.push(content)
    messages.push(message, { role: 'tool', tool_call_id: call.id, content })
  }
  return found.join('\n')
}

/**
 * The scripted model: asks for `get_item` once per tool result so far, five times, then answers. The agent
 * stops after its fifth tool call, so the recording never holds that answer.
 */
export function itemsModel(request: NormalizedRequest): ScriptedTurn {
  const results = request.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool_result').length
  if (results >= TURNS) return { text: `All ${TURNS} items are in stock.` }
  return { toolCalls: [{ name: 'get_item', args: { id: `SKU-${100 + results}` } }] }
}
