import type { LoopOptions } from './loop-options.ts'
import { parseArgs, postModel, runToolCall } from './post-model.ts'

interface WireToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/**
 * A chat-completions tool loop over plain `fetch` (`/chat/completions`) that retries a 429 or a 5xx
 * twice: ask the model, run the tools it calls, send the results back as `tool` messages, until it
 * answers in text. A failed tool goes back as `{ error }`.
 */
export async function chatRetryLoop(options: LoopOptions): Promise<string> {
  const { system, input, tools, model = 'gpt-4.1-mini', maxSteps = 8, maxTokens = 512 } = options
  const messages: unknown[] = [
    { role: 'system', content: system },
    { role: 'user', content: input },
  ]
  const wireTools = tools.map((t) => ({ type: 'function', function: t }))
  for (let step = 0; step < maxSteps; step++) {
    const body = (await postModel({
      fetch: options.fetch,
      url: `${options.baseUrl}/chat/completions`,
      headers: { authorization: 'Bearer sk-bench-not-a-real-key' },
      body: { model, messages, tools: wireTools, max_tokens: maxTokens, temperature: 0 },
    })) as { choices?: Array<{ message?: { content?: string | null; tool_calls?: WireToolCall[] } }> }
    const message = body.choices?.[0]?.message
    if (!message) throw new Error('the model returned no choice')
    const calls = message.tool_calls ?? []
    messages.push({
      role: 'assistant',
      content: message.content ?? null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    })
    if (calls.length === 0) return message.content ?? ''
    for (const call of calls) {
      const result = await runToolCall(options.run, call.function.name, parseArgs(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.content })
    }
  }
  throw new Error(`the agent gave up after ${maxSteps} model calls`)
}
