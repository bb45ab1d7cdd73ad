import type { ToolDef } from '../../types.ts'

/** A tool function of an agent: takes the parsed arguments, returns data or throws. */
export type ToolFn = (args: Record<string, unknown>) => unknown

interface WireToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

/**
 * A plain chat-completions tool loop over `fetch`, with no SDK: ask the model, run the tools it calls,
 * feed the results back until it answers in text. A failed tool goes back to the model as `{ error }`;
 * a provider error status throws, with the start of its body. No retry.
 */
export async function chatToolLoop(options: {
  baseUrl: string
  fetch: typeof fetch
  system: string
  input: string
  tools: readonly ToolDef[]
  run: Record<string, ToolFn>
  model?: string
  maxSteps?: number
}): Promise<string> {
  const { baseUrl, system, input, tools, run, model = 'gpt-4o-mini', maxSteps = 8 } = options
  const messages: WireMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: input },
  ]
  const wireTools = tools.map((t) => ({ type: 'function', function: t }))
  for (let step = 0; step < maxSteps; step++) {
    const res = await options.fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-not-a-real-key' },
      body: JSON.stringify({ model, messages, tools: wireTools, temperature: 0 }),
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`the model provider answered ${res.status}: ${text.slice(0, 120)}`)
    const body = JSON.parse(text) as {
      choices?: Array<{ message?: { content?: string | null; tool_calls?: WireToolCall[] } }>
    }
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
      messages.push({ role: 'tool', tool_call_id: call.id, content: await runTool(run, call) })
    }
  }
  throw new Error(`the agent gave up after ${maxSteps} model calls`)
}

async function runTool(run: Record<string, ToolFn>, call: WireToolCall): Promise<string> {
  try {
    const fn = run[call.function.name]
    if (!fn) return JSON.stringify({ error: `unknown tool ${call.function.name}` })
    const result = await fn(JSON.parse(call.function.arguments) as Record<string, unknown>)
    return typeof result === 'string' ? result : JSON.stringify(result)
  } catch (err) {
    return JSON.stringify({ error: (err as Error).message })
  }
}
