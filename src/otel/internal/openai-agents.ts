import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, NormalizedResponse } from '../../case/schema/normalized.ts'
import { openaiChat } from '../../providers/openai-chat.ts'
import type { FoundSpan } from './found-spans.ts'
import type { SpanReader } from './span-reader.ts'

/** The attribute an Agents SDK span's `span_data` is kept under once read as a span (`readAgentsTrace`). */
export const AGENTS_SPAN_DATA = 'openai.agents.span_data'

/**
 * A span of the OpenAI Agents SDK's own trace payload (`readAgentsTrace`), by its `span_data.type`:
 * `generation` (a Chat Completions call: its request messages and its `chat.completion` answers, read
 * by crashlab's Chat Completions adapter), `function` (a tool: name, input, output), `agent` (names the
 * run). A `response` span (the Responses API) holds only the response's id: a model call whose content
 * the payload does not carry. Other types (`custom`, `handoff`, `guardrail`) are not steps.
 */
export function readAgentsSdkSpan(r: SpanReader): FoundSpan | undefined {
  const data = r.get(AGENTS_SPAN_DATA)
  if (!isObject(data)) return undefined
  const error =
    r.span.status.code === 2 ? { name: 'Error', message: r.span.status.message || 'failed' } : null
  switch (data.type) {
    case 'agent':
      return { kind: 'agent', span: r.span, convention: 'openai-agents', name: str(data.name) }
    case 'function':
      return {
        kind: 'tool',
        span: r.span,
        convention: 'openai-agents',
        name: str(data.name) ?? 'tool',
        callId: undefined,
        args: data.input === undefined || data.input === null ? undefined : parsed(data.input),
        result: data.output === undefined || data.output === null ? undefined : parsed(data.output),
        error,
      }
    case 'generation':
      return generation(r, data)
    case 'response':
      return {
        kind: 'llm',
        span: r.span,
        convention: 'openai-agents',
        provider: 'openai-responses',
        operation: 'responses',
        request: emptyRequest(''),
        inputCaptured: false,
        response: emptyResponse(),
        outputCaptured: false,
        lost: { parts: 0 },
      }
    default:
      return undefined
  }
}

function generation(r: SpanReader, data: JsonObject): FoundSpan {
  const input = Array.isArray(data.input) ? data.input : undefined
  const config = isObject(data.model_config) ? data.model_config : {}
  const body: JsonObject = { ...config, model: str(data.model) ?? '', messages: input ?? [] }
  const request = openaiChat.normalizeRequest({
    method: 'POST',
    url: 'https://api.openai.com/v1/chat/completions',
    headers: {},
    body,
  })
  const answer = Array.isArray(data.output) ? data.output.find(isObject) : undefined
  const response = answer ? openaiChat.normalizeResponse({ status: 200, headers: {}, body: answer }) : null
  return {
    kind: 'llm',
    span: r.span,
    convention: 'openai-agents',
    provider: 'openai-chat',
    operation: 'chat.completions',
    request,
    inputCaptured: input !== undefined,
    response: response ?? emptyResponse(),
    outputCaptured: response !== null,
    lost: { parts: 0 },
  }
}

function emptyRequest(model: string): NormalizedRequest {
  return { model, system: [], messages: [], tools: [], params: {} }
}

function emptyResponse(): NormalizedResponse {
  return { model: null, requestId: null, parts: [], toolCalls: [], finishReason: null, usage: null }
}

function parsed(value: JsonValue): JsonValue {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value) as JsonValue
  } catch {
    return value
  }
}

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
