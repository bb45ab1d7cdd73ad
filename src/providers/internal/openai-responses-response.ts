import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type {
  FinishReason,
  NormalizedResponse,
  Part,
  ToolCallPart,
  Usage,
} from '../../case/schema/normalized.ts'
import { arr, obj, str, toolCall, usageOf } from './openai-common.ts'
import { reasoningPart } from './openai-responses-request.ts'

/**
 * Responses API `response` object → normalized response. Output items are read in order: message
 * text (and refusals, which are the model's answer: text, finish `stop`), reasoning (its summary;
 * opaque when encrypted), function calls. Built-in tool items (web search, file search, code
 * interpreter, MCP, image generation) are the provider's own work, not the model's answer, and are
 * not normalized. Empty text is no part, as in the chat adapter.
 */

export function responsesUsage(usage: unknown): Usage | null {
  const u = obj(usage)
  if (!u) return null
  return usageOf(
    u.input_tokens,
    u.output_tokens,
    obj(u.input_tokens_details)?.cached_tokens,
    obj(u.output_tokens_details)?.reasoning_tokens,
  )
}

/** Output items as parts and tool calls. */
export function readOutput(output: readonly JsonValue[]): { parts: Part[]; toolCalls: ToolCallPart[] } {
  const parts: Part[] = []
  const toolCalls: ToolCallPart[] = []
  for (const value of output) {
    const item = obj(value)
    if (!item) continue
    if (item.type === 'message') {
      for (const c of arr(item.content)) {
        const text = str(obj(c)?.text) ?? str(obj(c)?.refusal) ?? ''
        if (text !== '') parts.push({ type: 'text', text })
      }
    } else if (item.type === 'reasoning') {
      parts.push(reasoningPart(item))
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      toolCalls.push(
        toolCall(str(item.call_id) ?? '', str(item.name) ?? '', str(item.arguments) ?? str(item.input) ?? ''),
      )
    }
  }
  return { parts, toolCalls }
}

/**
 * The finish reason of a response's `status`: completed is `tool_calls` when the model called a
 * function, else `stop`; incomplete is `content_filter` or (token limit) `length`; failed and
 * cancelled are `error`; a response still in progress has none.
 */
export function responsesFinishReason(response: JsonObject, hasToolCalls: boolean): FinishReason | null {
  switch (response.status ?? 'completed') {
    case 'completed':
      return hasToolCalls ? 'tool_calls' : 'stop'
    case 'incomplete':
      return obj(response.incomplete_details)?.reason === 'content_filter' ? 'content_filter' : 'length'
    case 'failed':
    case 'cancelled':
      return 'error'
    default:
      return null
  }
}

/**
 * A `response` object, normalized.
 *
 * @example
 * normalizeResponsesBody({ id: 'resp_1', model: 'gpt-5', status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi' }] }] })
 * // { model: 'gpt-5', requestId: 'resp_1', parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop', usage: null }
 */
export function normalizeResponsesBody(
  body: JsonObject,
  output: readonly JsonValue[] = arr(body.output),
): NormalizedResponse {
  const { parts, toolCalls } = readOutput(output)
  return {
    model: str(body.model) || null,
    requestId: str(body.id) || null,
    parts,
    toolCalls,
    finishReason: responsesFinishReason(body, toolCalls.length > 0),
    usage: responsesUsage(body.usage),
  }
}
