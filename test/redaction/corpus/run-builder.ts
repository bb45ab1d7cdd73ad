import type { JsonObject, JsonValue } from '../../../src/case/schema/json.ts'
import type { Message, Part } from '../../../src/case/schema/normalized.ts'
import type { Run } from '../../../src/case/schema/run.ts'
import type { HttpStep, LlmStep, SseChunk, Step, ToolStep } from '../../../src/case/schema/step.ts'

/**
 * Builds one valid run that many planted secrets share: each location adds its own steps or its own
 * keyed slot, so every planted instance sits at a distinct place and a leak names its location.
 */

const T0 = Date.UTC(2025, 0, 15, 9, 30)

export class RunBuilder {
  readonly steps: Step[] = []
  readonly input: JsonObject = {}
  readonly output: JsonObject = {}
  readonly metadata: JsonObject = {}
  readonly errors: string[] = []
  readonly checks: Run['checks'] = []
  readonly findings: Run['findings'] = []
  private readonly shared = new Map<string, Step>()

  private timing() {
    return { startedAt: new Date(T0 + this.steps.length * 1000).toISOString(), durationMs: 12.5 }
  }

  /** A step that several plantings of one location share (keyed slots in one header map, one body). */
  sharedStep<S extends Step>(key: string, make: () => Omit<S, 'index' | 'timing'>): S {
    let step = this.shared.get(key)
    if (!step) {
      step = this.add(make() as Omit<Step, 'index' | 'timing'>)
      this.shared.set(key, step)
    }
    return step as S
  }

  add(step: Omit<Step, 'index' | 'timing'>): Step {
    const full = { ...step, index: this.steps.length, timing: this.timing() } as Step
    this.steps.push(full)
    return full
  }

  http(request: Partial<HttpStep['request']>, response: HttpStep['response'] = null): HttpStep {
    return this.add({
      type: 'http',
      label: 'unknown',
      request: { method: 'GET', url: 'https://api.example.com/v1/ping', headers: {}, body: null, ...request },
      response,
      error: null,
    } as Omit<HttpStep, 'index' | 'timing'>) as HttpStep
  }

  tool(name: string, args: JsonValue, rest: Partial<ToolStep> = {}): ToolStep {
    return this.add({
      type: 'tool',
      name,
      callId: `call_${this.steps.length}`,
      args,
      sideEffects: false,
      error: null,
      ...rest,
    } as Omit<ToolStep, 'index' | 'timing'>) as ToolStep
  }

  /**
   * An OpenAI chat step whose wire and normalized forms agree: `system` and `user` go into both,
   * `toolResult` is a tool message in both, the response is `reply` text, a tool call with
   * `toolArguments` (the wire's JSON string), a stream of `chunks`, or an error body with `status`.
   */
  llm(o: {
    system?: string
    user?: string
    toolResult?: string
    reply?: string
    toolArguments?: string
    chunks?: SseChunk[]
    status?: number
    errorBody?: JsonValue
    stepError?: string
  }): LlmStep {
    const system = o.system ?? 'You are a support agent.'
    const user = o.user ?? 'Where is my order?'
    const wireMessages: JsonValue[] = [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ]
    const messages: Message[] = [{ role: 'user', parts: [{ type: 'text', text: user }] }]
    if (o.toolResult !== undefined) {
      wireMessages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      })
      wireMessages.push({ role: 'tool', tool_call_id: 'call_1', content: o.toolResult })
      messages.push({
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup', args: {} }],
      })
      messages.push({
        role: 'tool',
        parts: [{ type: 'tool_result', id: 'call_1', name: 'lookup', content: o.toolResult, isError: false }],
      })
    }
    const status = o.status ?? 200
    const parts: Part[] = o.reply !== undefined ? [{ type: 'text', text: o.reply }] : []
    const toolCalls =
      o.toolArguments !== undefined
        ? [
            {
              type: 'tool_call' as const,
              id: 'call_9',
              name: 'run_script',
              args: safeParse(o.toolArguments),
              ...(safeParse(o.toolArguments) === null && { argsText: o.toolArguments }),
            },
          ]
        : []
    const body: JsonValue | null =
      status >= 400
        ? (o.errorBody ?? null)
        : o.chunks
          ? null
          : {
              id: 'chatcmpl-1',
              object: 'chat.completion',
              model: 'gpt-4o-mini',
              choices: [
                {
                  index: 0,
                  finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
                  message: {
                    role: 'assistant',
                    content: o.reply ?? null,
                    ...(o.toolArguments !== undefined && {
                      tool_calls: [
                        {
                          id: 'call_9',
                          type: 'function',
                          function: { name: 'run_script', arguments: o.toolArguments },
                        },
                      ],
                    }),
                  },
                },
              ],
            }
    return this.add({
      type: 'llm',
      provider: 'openai-chat',
      endpoint: 'chat.completions',
      request: {
        wire: {
          method: 'POST',
          url: 'https://api.openai.com/v1/chat/completions',
          headers: { 'content-type': 'application/json' },
          body: { model: 'gpt-4o-mini', messages: wireMessages, ...(o.chunks && { stream: true }) },
        },
        normalized: {
          model: 'gpt-4o-mini',
          system: [{ type: 'text', text: system }],
          messages,
          tools: [],
          params: o.chunks ? { stream: true } : {},
        },
        requestHash: `sha256:${'0'.repeat(64)}`,
      },
      response: {
        wire: {
          status,
          headers: { 'content-type': o.chunks ? 'text/event-stream' : 'application/json' },
          body,
          ...(o.chunks && { chunks: o.chunks }),
        },
        normalized:
          status >= 400
            ? null
            : {
                model: 'gpt-4o-mini',
                requestId: null,
                parts,
                toolCalls,
                finishReason: toolCalls.length ? 'tool_calls' : 'stop',
                usage: null,
              },
        incomplete: false,
      },
      error: o.stepError ? { name: 'APIError', message: o.stepError, status } : null,
    } as Omit<LlmStep, 'index' | 'timing'>) as LlmStep
  }

  build(name = 'leak-corpus'): Run {
    return {
      id: '01JH7Z0000REDACTC0RPVS0000',
      name,
      tags: ['redaction-corpus'],
      status: this.errors.length ? 'error' : 'ok',
      outcome: 'fail',
      completeness: 'complete',
      input: this.input,
      output: this.output,
      error: this.errors.length ? { name: 'AgentError', message: this.errors.join('\n') } : null,
      entryPoint: { kind: 'module', module: './agent.ts', export: 'run' },
      startedAt: new Date(T0).toISOString(),
      endedAt: new Date(T0 + this.steps.length * 1000 + 500).toISOString(),
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        cachedTokens: 0,
        reasoningTokens: 0,
        llmCalls: 0,
        toolCalls: 0,
      },
      cost: null,
      gitSha: null,
      links: {},
      steps: this.steps,
      checks: this.checks,
      findings: this.findings,
      diagnosis: null,
      fixes: [],
      redaction: { status: 'none', records: [] },
      metadata: this.metadata,
    }
  }
}

function safeParse(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return null
  }
}

/** SSE chunks of a chat completion whose content deltas are `pieces`, then a finish chunk. */
export function contentChunks(pieces: string[]): SseChunk[] {
  const chunks = pieces.map((content, i) => ({
    data: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content } }],
    }),
    atMs: i * 5,
  }))
  chunks.push({
    data: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    }),
    atMs: pieces.length * 5,
  })
  chunks.push({ data: '[DONE]', atMs: pieces.length * 5 + 1 })
  return chunks
}

/** SSE chunks of a chat completion whose tool-call `arguments` deltas are `pieces`. */
export function toolArgumentChunks(pieces: string[]): SseChunk[] {
  const chunks = pieces.map((args, i) => ({
    data: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: 0,
                ...(i === 0 && { id: 'call_9', type: 'function' }),
                function: { ...(i === 0 && { name: 'run_script' }), arguments: args },
              },
            ],
          },
        },
      ],
    }),
    atMs: i * 5,
  }))
  chunks.push({ data: '[DONE]', atMs: pieces.length * 5 })
  return chunks
}

/** Anthropic `input_json_delta` events whose `partial_json` pieces assemble a tool input. */
export function anthropicJsonChunks(pieces: string[]): SseChunk[] {
  return pieces.map((partial_json, i) => ({
    event: 'content_block_delta',
    data: JSON.stringify({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json },
    }),
    atMs: i * 5,
  }))
}

/** OpenAI Responses `response.output_text.delta` events. */
export function responsesTextChunks(pieces: string[]): SseChunk[] {
  return pieces.map((delta, i) => ({
    event: 'response.output_text.delta',
    data: JSON.stringify({
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta,
    }),
    atMs: i * 5,
  }))
}
