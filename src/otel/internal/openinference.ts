import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Message, Params, ToolCallPart, Usage } from '../../case/schema/normalized.ts'
import { type FoundSpan, spanError, splitSystem, toolDefinitions } from './found-spans.ts'
import { usageFrom } from './gen-ai.ts'
import { chatMessage, finishReasonOf, type Lost } from './messages.ts'
import type { SpanReader } from './span-reader.ts'

/**
 * OpenInference (Arize Phoenix's conventions): `openinference.span.kind` says what a span is, and
 * lists are flattened into indexed keys (`llm.input_messages.0.message.role`,
 * `llm.output_messages.0.message.tool_calls.0.tool_call.function.name`).
 */

/** The span as an OpenInference LLM, TOOL or AGENT span; undefined for any other span. */
export function readOpenInferenceSpan(r: SpanReader): FoundSpan | undefined {
  const kind = r.span.attributes['openinference.span.kind']
  if (typeof kind !== 'string') return undefined
  r.note('openinference.span.kind')
  switch (kind.toUpperCase()) {
    case 'AGENT':
      return {
        kind: 'agent',
        span: r.span,
        convention: 'openinference',
        name: r.str('agent.name') ?? r.span.name,
      }
    case 'TOOL':
      return {
        kind: 'tool',
        span: r.span,
        convention: 'openinference',
        name: r.str('tool.name') ?? r.span.name,
        callId: r.str('tool_call.id'),
        args: shown(r.json('input.value')),
        result: shown(r.json('output.value')),
        error: spanError(r.span, 'ToolError'),
      }
    case 'LLM':
      return llm(r)
    default:
      return undefined
  }
}

function llm(r: SpanReader): FoundSpan {
  const lost: Lost = { parts: 0 }
  const inputList = indexed(r.under('llm.input_messages'))
  const outputList = indexed(r.under('llm.output_messages'))
  const { system, messages } = splitSystem(inputList.flatMap((m) => message(m, lost)))
  const output = outputList.flatMap((m) => message(m, lost))
  const outParts = output.flatMap((m) => m.parts)
  const invocation = r.json('llm.invocation_parameters')
  const answer = completionOf(shown(r.json('output.value')))
  // The instrumentation writes the finish reason even when it hides the output.
  const finish = finishReasonOf(r.get('llm.finish_reason'))
  return {
    kind: 'llm',
    span: r.span,
    convention: 'openinference',
    provider: r.str('llm.provider', 'llm.system') ?? 'unknown',
    operation: 'chat',
    request: {
      model: r.str('llm.model_name') ?? 'unknown',
      system,
      messages,
      tools: toolDefinitions(
        indexed(r.under('llm.tools')).map((t) => (t.tool as JsonObject | undefined)?.json_schema ?? null),
      ),
      params: paramsOf(invocation),
    },
    inputCaptured: inputList.length > 0,
    response: {
      model: answer.model,
      requestId: answer.id,
      parts: outParts.filter((p) => p.type !== 'tool_call'),
      toolCalls: outParts.filter((p): p is ToolCallPart => p.type === 'tool_call'),
      // Without `llm.finish_reason` (older instrumentations), a tool call is the only reason that can be told.
      finishReason:
        finish ??
        (outParts.some((p) => p.type === 'tool_call') ? 'tool_calls' : output.length > 0 ? 'stop' : null),
      usage: usageOf(r),
    },
    outputCaptured: outputList.length > 0,
    lost,
  }
}

/** What OpenInference writes in place of a value when its trace config hides inputs or outputs. */
const HIDDEN = '__REDACTED__'

/** A value the instrumentation recorded; undefined when it hid it. */
function shown(value: JsonValue | undefined): JsonValue | undefined {
  return value === HIDDEN ? undefined : value
}

/**
 * The response's id and model from `output.value`, which the OpenAI instrumentation fills with the
 * provider's whole answer (a `chat.completion` or `response` object); null when it holds something else.
 */
function completionOf(output: JsonValue | undefined): { id: string | null; model: string | null } {
  const o = output !== null && typeof output === 'object' && !Array.isArray(output) ? output : {}
  const provider = typeof o.object === 'string' && /^(chat\.completion|response)$/.test(o.object)
  return {
    id: provider && typeof o.id === 'string' ? o.id : null,
    model: provider && typeof o.model === 'string' ? o.model : null,
  }
}

/** `{ message: { role, content, contents, tool_calls, tool_call_id, name } }` → a normalized message. */
function message(entry: JsonObject, lost: Lost): Message[] {
  const m = (entry.message ?? {}) as JsonObject
  const contents = indexed((m.contents ?? {}) as JsonObject).map((c) => {
    const mc = (c.message_content ?? {}) as JsonObject
    return mc.type === 'text' || mc.type === undefined
      ? { type: 'text', text: mc.text ?? '' }
      : { type: String(mc.type) }
  })
  const toolCalls = indexed((m.tool_calls ?? {}) as JsonObject).map((c) => {
    const call = (c.tool_call ?? {}) as JsonObject
    return { id: call.id ?? '', function: call.function ?? {} }
  })
  const msg = chatMessage(
    {
      role: m.role ?? null,
      content: m.content ?? (contents.length > 0 ? contents : null),
      tool_calls: toolCalls,
      ...(m.tool_call_id !== undefined && { tool_call_id: m.tool_call_id }),
      ...(m.name !== undefined && { name: m.name }),
    } as JsonObject,
    lost,
  )
  return msg ? [msg] : []
}

/**
 * Flattened keys (`0.message.role`, `0.message.tool_calls.1.tool_call.id`) back into a list of
 * objects, in index order.
 */
function indexed(flat: JsonObject): JsonObject[] {
  const root: JsonObject = {}
  for (const [key, value] of Object.entries(flat)) {
    const path = key.split('.')
    let node = root
    for (let i = 0; i < path.length - 1; i++) {
      const next = node[path[i]!]
      if (next !== null && typeof next === 'object' && !Array.isArray(next)) node = next
      else {
        const child: JsonObject = {}
        node[path[i]!] = child
        node = child
      }
    }
    node[path.at(-1)!] = value
  }
  return Object.keys(root)
    .filter((k) => /^\d+$/.test(k))
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => root[k] as JsonObject)
}

function paramsOf(invocation: JsonValue | undefined): Params {
  const p = (
    invocation !== null && typeof invocation === 'object' && !Array.isArray(invocation) ? invocation : {}
  ) as JsonObject
  const params: Params = {}
  if (typeof p.temperature === 'number') params.temperature = p.temperature
  if (typeof p.top_p === 'number') params.topP = p.top_p
  const max = p.max_tokens ?? p.max_completion_tokens ?? p.max_output_tokens
  if (typeof max === 'number' && Number.isInteger(max)) params.maxTokens = max
  if (typeof p.seed === 'number' && Number.isInteger(p.seed)) params.seed = p.seed
  return params
}

function usageOf(r: SpanReader): Usage | null {
  return usageFrom(r.num('llm.token_count.prompt'), r.num('llm.token_count.completion'), {
    cachedTokens: r.num('llm.token_count.prompt_details.cache_read'),
    reasoningTokens: r.num('llm.token_count.completion_details.reasoning'),
  })
}
