import type { JsonObject } from '../../case/schema/json.ts'
import type {
  FinishReason,
  NormalizedResponse,
  Part,
  ToolCallPart,
  Usage,
} from '../../case/schema/normalized.ts'
import { blockToPart } from './anthropic-blocks.ts'
import { arr, isRecord, num, str } from './anthropic-gemini-values.ts'

/**
 * Anthropic `Message` → normalized response, and the two vocabularies both directions share: stop
 * reasons and usage.
 */

const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  // The server paused a long-running turn (server tools); the client continues it: not a failure.
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
}

/**
 * The neutral finish reason of a `stop_reason`; null when there is none yet (a cut stream).
 *
 * @example
 * finishFromStopReason('tool_use') // 'tool_calls'
 */
export function finishFromStopReason(stopReason: unknown): FinishReason | null {
  if (typeof stopReason !== 'string') return null
  return FINISH[stopReason] ?? 'stop'
}

/**
 * The `stop_reason` a finish reason is sent as. An `error` has no stop reason: a stream says it with
 * an `error` event, a plain body with none (null).
 *
 * @example
 * stopReasonOf('length') // 'max_tokens'
 */
export function stopReasonOf(finish: FinishReason | null): string | null {
  switch (finish) {
    case 'stop':
      return 'end_turn'
    case 'length':
      return 'max_tokens'
    case 'tool_calls':
      return 'tool_use'
    case 'content_filter':
      return 'refusal'
    default:
      return null
  }
}

/**
 * Usage in the neutral shape: input counts every input token (uncached, cache writes and cache
 * reads), `cachedTokens` the cache reads, `cacheWriteTokens` the cache writes (priced above plain
 * input), `reasoningTokens` the thinking tokens when reported.
 *
 * @example
 * usageFromAnthropic({ input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 7 })
 * // { inputTokens: 115, outputTokens: 7, cachedTokens: 100, cacheWriteTokens: 5 }
 */
export function usageFromAnthropic(usage: unknown): Usage | null {
  if (!isRecord(usage)) return null
  const cacheRead = num(usage.cache_read_input_tokens)
  const cacheWrite = num(usage.cache_creation_input_tokens)
  const out: Usage = {
    inputTokens: (num(usage.input_tokens) ?? 0) + (cacheWrite ?? 0) + (cacheRead ?? 0),
    outputTokens: num(usage.output_tokens) ?? 0,
  }
  if (cacheRead !== undefined) out.cachedTokens = cacheRead
  if (cacheWrite !== undefined) out.cacheWriteTokens = cacheWrite
  const thinking = isRecord(usage.output_tokens_details)
    ? num(usage.output_tokens_details.thinking_tokens)
    : undefined
  if (thinking !== undefined) out.reasoningTokens = thinking
  return out
}

/**
 * The wire usage of a neutral one: cached tokens are cache reads, cache writes are cache creation,
 * the remaining input is uncached. A response without usage is written with zeros, since clients
 * expect the field.
 *
 * @example
 * usageToAnthropic({ inputTokens: 115, outputTokens: 7, cachedTokens: 100 })
 * // { input_tokens: 15, output_tokens: 7, cache_read_input_tokens: 100 }
 */
export function usageToAnthropic(usage: Usage | null): JsonObject {
  const cached = usage?.cachedTokens
  const written = usage?.cacheWriteTokens
  const out: JsonObject = {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - (cached ?? 0) - (written ?? 0)),
    output_tokens: usage?.outputTokens ?? 0,
  }
  if (written !== undefined) out.cache_creation_input_tokens = written
  if (cached !== undefined) out.cache_read_input_tokens = cached
  if (usage?.reasoningTokens !== undefined)
    out.output_tokens_details = { thinking_tokens: usage.reasoningTokens }
  return out
}

/**
 * Splits content blocks into the parts a model produced (text, reasoning) and its tool calls.
 *
 * @example
 * splitContent([{ type: 'text', text: 'Hi' }, { type: 'tool_use', id: 't', name: 'f', input: {} }]).toolCalls.length // 1
 */
export function splitContent(content: unknown): { parts: Part[]; toolCalls: ToolCallPart[] } {
  const parts: Part[] = []
  const toolCalls: ToolCallPart[] = []
  for (const block of arr(content)) {
    const part = blockToPart(block)
    if (part?.type === 'tool_call') toolCalls.push(part)
    else if (part?.type === 'text' || part?.type === 'reasoning') parts.push(part)
  }
  return { parts, toolCalls }
}

/**
 * The normalized form of a plain (non-streamed) Messages response body.
 *
 * @example
 * normalizeAnthropicMessage({ id: 'msg_1', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } }, {})
 * // { model: 'claude-sonnet-4-5', requestId: 'msg_1', parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 1 } }
 */
export function normalizeAnthropicMessage(
  body: unknown,
  headers: Readonly<Record<string, string>>,
): NormalizedResponse {
  const message = isRecord(body) ? body : {}
  const { parts, toolCalls } = splitContent(message.content)
  return {
    model: str(message.model) || null,
    requestId: headers['request-id'] ?? (str(message.id) || null),
    parts,
    toolCalls,
    finishReason: finishFromStopReason(message.stop_reason),
    usage: usageFromAnthropic(message.usage),
  }
}
