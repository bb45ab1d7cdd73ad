import type { LoopOptions } from './loop-options.ts'
import { postModel, runToolCall } from './post-model.ts'

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }

/**
 * An Anthropic Messages tool loop over plain `fetch` (`/messages`, with `x-api-key` and
 * `anthropic-version`), that retries a 429 or a 5xx twice: each `tool_use` block is run and answered
 * in the next user turn with a `tool_result` block (`is_error` when the tool threw), until the model
 * answers with no tool use.
 */
export async function messagesLoop(options: LoopOptions): Promise<string> {
  const { system, input, tools, model = 'claude-haiku-4-5', maxSteps = 8, maxTokens = 512 } = options
  const messages: unknown[] = [{ role: 'user', content: input }]
  const wireTools = tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters,
  }))
  // The base URL carries /v1 for the OpenAI wires; Anthropic's path is /v1/messages from the origin.
  const origin = options.baseUrl.replace(/\/v1\/?$/, '')
  for (let step = 0; step < maxSteps; step++) {
    const body = (await postModel({
      fetch: options.fetch,
      url: `${origin}/v1/messages`,
      headers: { 'x-api-key': 'sk-ant-bench-not-a-real-key', 'anthropic-version': '2023-06-01' },
      body: { model, system, messages, tools: wireTools, max_tokens: maxTokens },
    })) as { content?: ContentBlock[] }
    const content = body.content ?? []
    messages.push({ role: 'assistant', content })
    const uses = content.filter(
      (b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use',
    )
    if (uses.length === 0) {
      return content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    }
    const results = []
    for (const use of uses) {
      const result = await runToolCall(options.run, use.name, use.input ?? {})
      results.push({
        type: 'tool_result',
        tool_use_id: use.id,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      })
    }
    messages.push({ role: 'user', content: results })
  }
  throw new Error(`the agent gave up after ${maxSteps} model calls`)
}
