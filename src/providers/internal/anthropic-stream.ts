import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Part, ToolCallPart } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import { sseJson } from '../sse.ts'
import type { AssembledStream } from '../types.ts'
import { isRecord, str, toolCallFromText } from './anthropic-gemini-values.ts'
import { finishFromStopReason, usageFromAnthropic } from './anthropic-response.ts'

/**
 * Puts an Anthropic Messages stream back together, the way the SDK's MessageStream does: blocks by
 * index, text and thinking from their deltas, tool input from its `input_json_delta` fragments, stop
 * reason and final usage from `message_delta`. What arrived is kept when the stream ends early.
 */

interface Block {
  kind: 'text' | 'reasoning' | 'opaque' | 'tool' | 'other'
  text: string
  id: string
  name: string
  /** Tool input sent whole in `content_block_start`, used when no fragment follows. */
  input: JsonValue | undefined
}

/**
 * The response a stream carried, and whether it ended properly (a `message_stop`, no `error` event,
 * no event cut in the middle).
 *
 * @example
 * assembleAnthropicStream(parseSse(text)).response.toolCalls[0]?.args // { location: 'San Francisco, CA' }
 */
export function assembleAnthropicStream(chunks: readonly SseChunk[]): AssembledStream {
  const blocks = new Map<number, Block>()
  let message: JsonObject = {}
  let usage: JsonObject | undefined
  let stopReason: JsonValue | undefined
  let stopped = false
  let failed = false
  for (const chunk of chunks) {
    const event = sseJson(chunk)
    if (!isRecord(event)) {
      failed = true // an event cut in the middle, or not JSON at all
      continue
    }
    switch (event.type ?? chunk.event) {
      case 'message_start':
        if (isRecord(event.message)) message = event.message
        if (isRecord(message.usage)) usage = { ...message.usage }
        break
      case 'content_block_start':
        if (typeof event.index === 'number') blocks.set(event.index, startBlock(event.content_block))
        break
      case 'content_block_delta': {
        const block = typeof event.index === 'number' ? blocks.get(event.index) : undefined
        if (block && isRecord(event.delta)) applyDelta(block, event.delta)
        break
      }
      case 'message_delta':
        if (isRecord(event.delta) && event.delta.stop_reason !== undefined)
          stopReason = event.delta.stop_reason
        // Counters in message_delta are whole-message totals: each one present replaces the old.
        if (isRecord(event.usage)) {
          usage ??= {}
          for (const [key, value] of Object.entries(event.usage)) if (value !== null) usage[key] = value
        }
        break
      case 'message_stop':
        stopped = true
        break
      case 'error':
        failed = true
        stopReason = 'error'
        break
    }
  }
  const parts: Part[] = []
  const toolCalls: ToolCallPart[] = []
  for (const index of [...blocks.keys()].sort((a, b) => a - b)) {
    const block = blocks.get(index)!
    if (block.kind === 'text') parts.push({ type: 'text', text: block.text })
    else if (block.kind === 'reasoning') parts.push({ type: 'reasoning', text: block.text })
    else if (block.kind === 'opaque') parts.push({ type: 'reasoning', text: '', opaque: true })
    else if (block.kind === 'tool') toolCalls.push(toolCall(block))
  }
  return {
    response: {
      model: str(message.model) || null,
      requestId: str(message.id) || null,
      parts,
      toolCalls,
      finishReason: stopReason === 'error' ? 'error' : finishFromStopReason(stopReason),
      usage: usageFromAnthropic(usage),
    },
    incomplete: !stopped || failed,
  }
}

function startBlock(content: unknown): Block {
  const block: Block = { kind: 'other', text: '', id: '', name: '', input: undefined }
  if (!isRecord(content)) return block
  switch (content.type) {
    case 'text':
      return { ...block, kind: 'text', text: str(content.text) ?? '' }
    case 'thinking':
      return { ...block, kind: 'reasoning', text: str(content.thinking) ?? '' }
    case 'redacted_thinking':
      return { ...block, kind: 'opaque' }
    case 'tool_use':
      return {
        ...block,
        kind: 'tool',
        id: str(content.id) ?? '',
        name: str(content.name) ?? '',
        input: content.input,
      }
    default:
      return block
  }
}

function applyDelta(block: Block, delta: JsonObject): void {
  if (delta.type === 'text_delta' && block.kind === 'text') block.text += str(delta.text) ?? ''
  else if (delta.type === 'thinking_delta' && block.kind === 'reasoning')
    block.text += str(delta.thinking) ?? ''
  else if (delta.type === 'input_json_delta' && block.kind === 'tool')
    block.text += str(delta.partial_json) ?? ''
}

function toolCall(block: Block): ToolCallPart {
  // The API sends `input: {}` and then the fragments; a proxy that sends the input whole and no
  // fragment still means that input.
  if (block.text === '' && isRecord(block.input) && Object.keys(block.input).length > 0) {
    return { type: 'tool_call', id: block.id, name: block.name, args: block.input }
  }
  return toolCallFromText(block.id, block.name, block.text)
}
