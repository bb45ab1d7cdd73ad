import type { LoopOptions } from './loop-options.ts'
import { parseArgs, postModel, runToolCall } from './post-model.ts'

type OutputItem =
  | { type: 'message'; content?: Array<{ type: string; text?: string }> }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: string }

/**
 * An OpenAI Responses tool loop over plain `fetch` (`/responses`), stateless (the whole input is sent
 * each time, `store: false`), that retries a 429 or a 5xx twice: the model's `function_call` items go
 * back into the input with a `function_call_output` each, until it answers with no call.
 */
export async function responsesLoop(options: LoopOptions): Promise<string> {
  const { system, input, tools, model = 'gpt-4.1-mini', maxSteps = 8, maxTokens = 512 } = options
  const items: unknown[] = [{ role: 'user', content: input }]
  const wireTools = tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
  }))
  for (let step = 0; step < maxSteps; step++) {
    const body = (await postModel({
      fetch: options.fetch,
      url: `${options.baseUrl}/responses`,
      headers: { authorization: 'Bearer sk-bench-not-a-real-key' },
      body: {
        model,
        instructions: system,
        input: items,
        tools: wireTools,
        max_output_tokens: maxTokens,
        store: false,
      },
    })) as { output?: OutputItem[] }
    const output = body.output ?? []
    let text = ''
    const calls: Array<{ call_id: string; name: string; arguments: string }> = []
    for (const item of output) {
      items.push(item)
      if (item.type === 'message' && 'content' in item)
        for (const part of item.content ?? []) if (part.type === 'output_text') text += part.text ?? ''
      if (item.type === 'function_call' && 'call_id' in item) calls.push(item)
    }
    if (calls.length === 0) return text
    for (const call of calls) {
      const result = await runToolCall(options.run, call.name, parseArgs(call.arguments))
      items.push({ type: 'function_call_output', call_id: call.call_id, output: result.content })
    }
  }
  throw new Error(`the agent gave up after ${maxSteps} model calls`)
}
