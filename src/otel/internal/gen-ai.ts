import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Message, Params, Role, ToolCallPart, Usage } from '../../case/schema/normalized.ts'
import type { OtlpSpan } from '../read-otlp.ts'
import { type FoundSpan, spanError, splitSystem, toolDefinitions } from './found-spans.ts'
import { chatMessage, finishReasonOf, genAiMessages, genAiSystem, type Lost } from './messages.ts'
import { parseJson, type SpanReader } from './span-reader.ts'

/**
 * The OpenTelemetry GenAI semantic conventions: inference spans (`chat`, `text_completion`,
 * `generate_content`), `execute_tool` and `invoke_agent` spans. Content comes from the current
 * attributes (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`), else
 * from the previous ones (`gen_ai.prompt` / `gen_ai.completion`, then the `gen_ai.*.message` and
 * `gen_ai.choice` span events).
 */

const INFERENCE = ['chat', 'text_completion', 'generate_content']

/** What the span's operation is: its `gen_ai.operation.name`, else the first word of its name. */
function operationOf(r: SpanReader): string | undefined {
  const op = r.span.attributes['gen_ai.operation.name']
  if (typeof op === 'string') return op
  const word = r.span.name.split(' ')[0]!
  // Before `gen_ai.operation.name`, a span said it was GenAI through `gen_ai.system` alone.
  const genAi = Object.keys(r.span.attributes).some((k) => k.startsWith('gen_ai.'))
  return genAi && [...INFERENCE, 'execute_tool', 'invoke_agent'].includes(word) ? word : undefined
}

/** The span as a GenAI inference, tool execution or agent invocation; undefined for any other span. */
export function readGenAiSpan(r: SpanReader): FoundSpan | undefined {
  const op = operationOf(r)
  if (op === undefined) return undefined
  r.get('gen_ai.operation.name')
  if (op === 'invoke_agent' || op === 'create_agent') {
    return { kind: 'agent', span: r.span, convention: 'gen_ai', name: r.str('gen_ai.agent.name') }
  }
  if (op === 'execute_tool') {
    const args = r.json('gen_ai.tool.call.arguments')
    const result = r.json('gen_ai.tool.call.result')
    return {
      kind: 'tool',
      span: r.span,
      convention: 'gen_ai',
      name: r.str('gen_ai.tool.name') ?? (r.span.name.replace(/^execute_tool\s*/, '') || 'unknown'),
      callId: r.str('gen_ai.tool.call.id'),
      args,
      result,
      error: spanError(r.span, 'ToolError'),
    }
  }
  if (!INFERENCE.includes(op)) return undefined
  const lost: Lost = { parts: 0 }
  const input = inputMessages(r, lost)
  const { system, messages } = splitSystem(input ?? [])
  const instructions = genAiSystem(r.json('gen_ai.system_instructions'), lost)
  const output = outputMessages(r, lost)
  const outParts = (output?.messages ?? []).flatMap((m) => m.parts)
  return {
    kind: 'llm',
    span: r.span,
    convention: 'gen_ai',
    provider: r.str('gen_ai.provider.name', 'gen_ai.system') ?? 'unknown',
    operation: op,
    request: {
      model: r.str('gen_ai.request.model') ?? r.str('gen_ai.response.model') ?? 'unknown',
      system: [...instructions, ...system],
      messages,
      tools: toolDefinitions(r.json('gen_ai.tool.definitions')),
      params: paramsOf(r),
    },
    inputCaptured: input !== undefined || instructions.length > 0,
    response: {
      model: r.str('gen_ai.response.model') ?? null,
      requestId: r.str('gen_ai.response.id') ?? null,
      parts: outParts.filter((p) => p.type !== 'tool_call'),
      toolCalls: outParts.filter((p): p is ToolCallPart => p.type === 'tool_call'),
      finishReason: finishReasonOf(output?.finishReason ?? r.get('gen_ai.response.finish_reasons')),
      usage: usageOf(r),
    },
    outputCaptured: output !== undefined,
    lost,
  }
}

function inputMessages(r: SpanReader, lost: Lost): Message[] | undefined {
  const current = r.json('gen_ai.input.messages')
  if (current !== undefined) return genAiMessages(current, lost)
  const prompt = r.json('gen_ai.prompt') ?? eventAttribute(r, 'gen_ai.content.prompt', 'gen_ai.prompt')
  if (prompt !== undefined) return chatMessages(prompt, lost)
  const events = r.events(
    'gen_ai.system.message',
    'gen_ai.user.message',
    'gen_ai.assistant.message',
    'gen_ai.tool.message',
  )
  if (events.length === 0) return undefined
  return events.flatMap((e) => {
    const role = e.name.split('.')[1] as Role
    const m = chatMessage(eventBody(e), lost, role)
    return m ? [m] : []
  })
}

function outputMessages(
  r: SpanReader,
  lost: Lost,
): { messages: Message[]; finishReason: JsonValue | undefined } | undefined {
  const current = r.json('gen_ai.output.messages')
  if (current !== undefined) {
    const first = Array.isArray(current) ? (current[0] as JsonObject | undefined) : undefined
    return { messages: genAiMessages(current, lost), finishReason: first?.finish_reason }
  }
  const completion =
    r.json('gen_ai.completion') ?? eventAttribute(r, 'gen_ai.content.completion', 'gen_ai.completion')
  if (completion !== undefined) return choices(Array.isArray(completion) ? completion : [completion], lost)
  const events = r.events('gen_ai.choice')
  if (events.length === 0) return undefined
  return choices(events.map(eventBody), lost)
}

/** Chat-shaped choices: `{ message, finish_reason }`, or a bare message. */
function choices(
  list: JsonValue[],
  lost: Lost,
): { messages: Message[]; finishReason: JsonValue | undefined } {
  let finishReason: JsonValue | undefined
  const messages: Message[] = []
  for (const c of list) {
    const choice = (
      c !== null && typeof c === 'object' && !Array.isArray(c) ? c : { content: c }
    ) as JsonObject
    finishReason ??= choice.finish_reason
    const message = (choice.message ?? choice) as JsonObject
    const m = chatMessage(message, lost, 'assistant')
    if (m) messages.push(m)
  }
  return { messages, finishReason }
}

function chatMessages(value: JsonValue, lost: Lost): Message[] {
  const list = Array.isArray(value) ? value : [value]
  return list.flatMap((m) => {
    const msg =
      m !== null && typeof m === 'object' && !Array.isArray(m) ? chatMessage(m, lost, 'user') : undefined
    return msg ? [msg] : []
  })
}

/** A span event's content: its `gen_ai.event.content` JSON when set, else its attributes. */
function eventBody(e: OtlpSpan['events'][number]): JsonObject {
  const content = e.attributes['gen_ai.event.content']
  const parsed = typeof content === 'string' ? parseJson(content) : undefined
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed
  const body: JsonObject = {}
  for (const [k, v] of Object.entries(e.attributes)) {
    // Structured values written as JSON strings (message, tool_calls) are parsed.
    body[k] = typeof v === 'string' && (k === 'message' || k === 'tool_calls') ? parseJson(v) : v
  }
  return body
}

function eventAttribute(r: SpanReader, event: string, key: string): JsonValue | undefined {
  const e = r.events(event)[0]
  const v = e?.attributes[key]
  if (v === undefined) return undefined
  r.note(key)
  return typeof v === 'string' ? parseJson(v) : v
}

function paramsOf(r: SpanReader): Params {
  const params: Params = {}
  const temperature = r.num('gen_ai.request.temperature')
  const topP = r.num('gen_ai.request.top_p')
  const maxTokens = r.num('gen_ai.request.max_tokens')
  const seed = r.num('gen_ai.request.seed')
  const stop = r.get('gen_ai.request.stop_sequences')
  if (temperature !== undefined) params.temperature = temperature
  if (topP !== undefined) params.topP = topP
  if (maxTokens !== undefined && Number.isInteger(maxTokens)) params.maxTokens = maxTokens
  if (seed !== undefined && Number.isInteger(seed)) params.seed = seed
  if (Array.isArray(stop)) params.stop = stop.map(String)
  const stream = r.get('gen_ai.request.stream')
  if (typeof stream === 'boolean') params.stream = stream
  const extra: JsonObject = {}
  for (const [key, wire] of [
    ['gen_ai.request.top_k', 'top_k'],
    ['gen_ai.request.frequency_penalty', 'frequency_penalty'],
    ['gen_ai.request.presence_penalty', 'presence_penalty'],
    ['gen_ai.request.choice.count', 'n'],
  ] as const) {
    const v = r.num(key)
    if (v !== undefined) extra[wire] = v
  }
  if (Object.keys(extra).length > 0) params.extra = extra
  return params
}

function usageOf(r: SpanReader): Usage | null {
  return usageFrom(
    r.num('gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'),
    r.num('gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'),
    {
      cachedTokens: r.num('gen_ai.usage.cache_read.input_tokens'),
      cacheWriteTokens: r.num('gen_ai.usage.cache_creation.input_tokens'),
      reasoningTokens: r.num('gen_ai.usage.reasoning.output_tokens'),
    },
  )
}

/**
 * Usage from the counts a span held: null when it held neither input nor output tokens. Counts are
 * made what the schema accepts (non-negative integers); the optional ones only when present.
 */
export function usageFrom(
  input: number | undefined,
  output: number | undefined,
  more: { [K in 'cachedTokens' | 'cacheWriteTokens' | 'reasoningTokens']?: number | undefined },
): Usage | null {
  if (input === undefined && output === undefined) return null
  const usage: Usage = { inputTokens: count(input), outputTokens: count(output) }
  for (const [key, n] of Object.entries(more) as Array<[keyof typeof more, number | undefined]>) {
    if (n !== undefined) usage[key] = count(n)
  }
  return usage
}

function count(n: number | undefined): number {
  return n !== undefined && n > 0 ? Math.round(n) : 0
}
