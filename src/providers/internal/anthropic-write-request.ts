import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, Part, ToolDefinition } from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { isPlainText, partToBlock, toolResultBlock } from './anthropic-blocks.ts'
import { groupTurns, ReusePool, sameJson, sameOrOriginal } from './anthropic-gemini-turns.ts'
import { arr, isRecord, num, orderedBody } from './anthropic-gemini-values.ts'
import { readAnthropicMessages, readAnthropicSystem } from './anthropic-read-messages.ts'
import { readTool } from './anthropic-request.ts'

/**
 * Normalized request → Anthropic Messages body. The normalized request decides every field it
 * describes; the original body gives back what it leaves out: unchanged messages, blocks and system
 * blocks are taken whole (thinking signatures, `cache_control`, media bytes, server tool blocks),
 * server tools keep their place, and keys keep their order.
 */

/**
 * The wire request carrying `normalized`, built on `original`.
 *
 * @example
 * const patched = { ...normalized, params: { ...normalized.params, temperature: 0 } }
 * writeAnthropicRequest(patched, original).body // original's body with temperature: 0
 */
export function writeAnthropicRequest(normalized: NormalizedRequest, original: WireRequest): WireRequest {
  const orig = isRecord(original.body) ? original.body : {}
  const { params } = normalized
  const out: Record<string, JsonValue | undefined> = { ...params.extra }
  out.model = normalized.model
  // max_tokens is required by the API: a request that no longer names it keeps the original's.
  out.max_tokens = params.maxTokens ?? out.max_tokens ?? num(orig.max_tokens)
  out.system = writeSystem(normalized.system, orig.system)
  out.messages = writeMessages(normalized.messages, orig.messages)
  out.tools = writeTools(normalized.tools, orig.tools)
  if (params.temperature !== undefined) out.temperature = params.temperature
  if (params.topP !== undefined) out.top_p = params.topP
  if (params.stop !== undefined) out.stop_sequences = params.stop
  if (params.stream !== undefined) out.stream = params.stream
  if (params.toolChoice !== undefined) {
    const choice = { ...asObject(out.tool_choice), ...toolChoiceOf(params.toolChoice) }
    out.tool_choice = sameOrOriginal(choice, orig.tool_choice)
  }
  if (params.responseFormat !== undefined) {
    const config = { ...asObject(out.output_config), format: params.responseFormat }
    out.output_config = sameOrOriginal(config, orig.output_config)
  }
  return { ...original, body: orderedBody(out, Object.keys(orig)) }
}

function asObject(value: JsonValue | undefined): JsonObject {
  return isRecord(value) ? value : {}
}

function toolChoiceOf(choice: JsonValue): JsonObject {
  if (choice === 'auto') return { type: 'auto' }
  if (choice === 'none') return { type: 'none' }
  if (choice === 'required') return { type: 'any' }
  if (isRecord(choice) && typeof choice.name === 'string') return { type: 'tool', name: choice.name }
  return { type: 'auto' }
}

function writeSystem(parts: Part[], original: JsonValue | undefined): JsonValue | undefined {
  if (parts.length === 0) return undefined
  if (original !== undefined && sameJson(parts, readAnthropicSystem(original))) return original
  const pool = new ReusePool<JsonValue>()
  for (const block of arr(original)) {
    const [part] = readAnthropicSystem([block])
    if (part) pool.add(part, block)
  }
  const blocks = parts.map((p) => pool.take(p) ?? partToBlock(p))
  const only = blocks[0]
  if (blocks.length === 1 && isPlainText(only) && !Array.isArray(original)) return only.text
  return blocks
}

function writeMessages(
  messages: NormalizedRequest['messages'],
  original: JsonValue | undefined,
): JsonValue[] {
  const turnPool = new ReusePool<JsonValue>()
  const blockPool = new ReusePool<JsonValue>()
  for (const turn of readAnthropicMessages(original)) {
    turnPool.add(turn.messages, turn.wire)
    for (const block of turn.blocks) blockPool.add(block.normalized, block.wire)
  }
  return groupTurns(messages).map((turn) => {
    const kept = turnPool.take(turn.messages)
    if (kept !== undefined) return kept
    const blocks: JsonValue[] = []
    for (const message of turn.messages) {
      if (message.role === 'tool') {
        blocks.push(blockPool.take({ tool: message.parts }) ?? toolResultBlock(message.parts))
        continue
      }
      for (const part of message.parts) blocks.push(blockPool.take(part) ?? partToBlock(part))
    }
    const only = blocks[0]
    const content = blocks.length === 1 && isPlainText(only) ? only.text : blocks
    return { role: turn.role, content }
  })
}

/**
 * The tools list: unchanged, the original; else the original's slots in order, client tools filled
 * with the normalized tools (each merged onto the original tool of its name, keeping `cache_control`,
 * `strict`, ...), server tools left where they were, new tools at the end.
 */
function writeTools(tools: ToolDefinition[], original: JsonValue | undefined): JsonValue | undefined {
  const slots = arr(original)
  const defs = slots.map(readTool)
  if (
    sameJson(
      tools,
      defs.filter((d) => d !== undefined),
    )
  )
    return tools.length > 0 || original !== undefined ? original : undefined
  const byName = new Map<string, JsonObject>()
  slots.forEach((slot, i) => {
    if (defs[i] && isRecord(slot)) byName.set(defs[i].name, slot)
  })
  const queue = [...tools]
  const out: JsonValue[] = []
  slots.forEach((slot, i) => {
    if (!defs[i]) out.push(slot)
    else {
      const next = queue.shift()
      if (next) out.push(writeTool(next, byName.get(next.name)))
    }
  })
  for (const tool of queue) out.push(writeTool(tool, byName.get(tool.name)))
  return out.length > 0 || original !== undefined ? out : undefined
}

function writeTool(tool: ToolDefinition, base: JsonObject | undefined): JsonObject {
  const out: JsonObject = { ...base, name: tool.name }
  if (tool.description !== undefined) out.description = tool.description
  else delete out.description
  out.input_schema = tool.parameters
  return out
}
