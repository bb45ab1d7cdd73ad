import type { JsonObject } from '../../case/schema/json.ts'
import type { NormalizedResponse, Part, ToolCallPart } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import type { WriteResponseOptions } from '../types.ts'
import { partToBlock } from './anthropic-blocks.ts'
import { argsTextOf, fragments } from './anthropic-gemini-values.ts'
import { stopReasonOf, usageToAnthropic } from './anthropic-response.ts'

/**
 * Normalized response → what the Messages API sends: a `Message` body, or the event stream the SDKs
 * read (every event with its `event:` line, tool input as `input_json_delta` fragments only, since the
 * SDK builds tool input from those alone).
 */

const MADE_UP_ID = 'msg_crashlab'

/**
 * The `Message` body of a response.
 *
 * @example
 * writeAnthropicMessage({ model: 'claude-sonnet-4-5', requestId: null, parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop', usage: null }, {})
 * // { id: 'msg_crashlab', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn', ... }
 */
export function writeAnthropicMessage(
  response: NormalizedResponse,
  options: WriteResponseOptions,
): JsonObject {
  const content = [...response.parts.filter(isOutput), ...response.toolCalls].map(partToBlock)
  return {
    ...header(response, options),
    content,
    stop_reason: stopReasonOf(response.finishReason),
    stop_sequence: null,
    usage: usageToAnthropic(response.usage),
  }
}

function header(response: NormalizedResponse, options: WriteResponseOptions): JsonObject {
  return {
    id: options.id ?? response.requestId ?? MADE_UP_ID,
    type: 'message',
    role: 'assistant',
    model: response.model ?? options.request?.model ?? '',
  }
}

/** Text and reasoning are what a `Message` carries; anything else has no content block in a response. */
function isOutput(part: Part): boolean {
  return part.type === 'text' || part.type === 'reasoning'
}

/**
 * The same response as the event stream the API sends. An `error` finish is sent as the `error`
 * event a failing stream ends with.
 *
 * @example
 * writeAnthropicStream(response, {}).map((c) => c.event)
 * // ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']
 */
export function writeAnthropicStream(
  response: NormalizedResponse,
  options: WriteResponseOptions,
): SseChunk[] {
  const events: JsonObject[] = []
  const usage = usageToAnthropic(response.usage)
  const failed = response.finishReason === 'error'
  // A response that never said why it ended was cut: no message_delta and no message_stop.
  const ends = !failed && response.finishReason !== null
  // The API reports input at the start and output at the end; a failed or cut stream never gets to the end.
  const startUsage: JsonObject = { ...usage }
  startUsage.output_tokens = ends ? Math.min(1, response.usage?.outputTokens ?? 0) : usage.output_tokens!
  if (ends) delete startUsage.output_tokens_details
  events.push({
    type: 'message_start',
    message: {
      ...header(response, options),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage,
    },
  })
  const blocks: Part[] = [...response.parts.filter(isOutput), ...response.toolCalls]
  blocks.forEach((part, index) => {
    events.push(...blockEvents(part, index))
    if (index === 0) events.splice(2, 0, { type: 'ping' })
  })
  if (blocks.length === 0) events.push({ type: 'ping' })
  if (failed) {
    events.push({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } })
  } else if (ends) {
    const final: JsonObject = { output_tokens: usage.output_tokens! }
    if (usage.output_tokens_details) final.output_tokens_details = usage.output_tokens_details
    events.push({
      type: 'message_delta',
      delta: { stop_reason: stopReasonOf(response.finishReason), stop_sequence: null },
      usage: final,
    })
    events.push({ type: 'message_stop' })
  }
  return events.map((e) => ({ event: e.type as string, data: JSON.stringify(e), atMs: 0 }))
}

function blockEvents(part: Part, index: number): JsonObject[] {
  const start = (content_block: JsonObject): JsonObject => ({
    type: 'content_block_start',
    index,
    content_block,
  })
  const delta = (d: JsonObject): JsonObject => ({ type: 'content_block_delta', index, delta: d })
  const stop: JsonObject = { type: 'content_block_stop', index }
  if (part.type === 'text') {
    const deltas = fragments(part.text).map((text) => delta({ type: 'text_delta', text }))
    return [start({ type: 'text', text: '' }), ...deltas, stop]
  }
  if (part.type === 'reasoning' && !part.opaque) {
    const deltas = fragments(part.text).map((thinking) => delta({ type: 'thinking_delta', thinking }))
    return [start({ type: 'thinking', thinking: '', signature: '' }), ...deltas, stop]
  }
  if (part.type === 'reasoning') return [start({ type: 'redacted_thinking', data: part.text }), stop]
  const call = part as ToolCallPart
  // The first fragment is empty, as the API sends it; the input itself only ever travels in fragments.
  const json = ['', ...fragments(argsTextOf(call))].map((partial_json) =>
    delta({ type: 'input_json_delta', partial_json }),
  )
  return [start({ type: 'tool_use', id: call.id, name: call.name, input: {} }), ...json, stop]
}
