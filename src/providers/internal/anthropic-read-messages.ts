import type { JsonValue } from '../../case/schema/json.ts'
import type { Message, Part, ToolResultPart } from '../../case/schema/normalized.ts'
import { blockToPart } from './anthropic-blocks.ts'
import type { ReadBlock, ReadTurn } from './anthropic-gemini-turns.ts'
import { arr, isRecord, str } from './anthropic-gemini-values.ts'

/**
 * Anthropic `messages` → normalized messages. A user turn that answers tool calls carries
 * `tool_result` blocks; each becomes its own `tool` message (named after the matching `tool_use`),
 * in order, and the rest of the turn follows as one user message.
 */

/**
 * Reads every wire message, keeping the link from each to its normalized messages.
 *
 * @example
 * readAnthropicMessages([{ role: 'user', content: 'Hi' }])[0]?.messages
 * // [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]
 */
export function readAnthropicMessages(raw: unknown): ReadTurn[] {
  const toolNames = new Map<string, string>()
  const turns: ReadTurn[] = []
  for (const wire of arr(raw)) {
    const message = isRecord(wire) ? wire : {}
    const role: Message['role'] = message.role === 'assistant' ? 'assistant' : 'user'
    const blocks: ReadBlock[] = []
    const tools: Message[] = []
    const parts: Part[] = []
    const content = typeof message.content === 'string' ? [message.content] : arr(message.content)
    for (const block of content) {
      if (isRecord(block) && block.type === 'tool_result') {
        const toolParts = readToolResult(block, toolNames)
        tools.push({ role: 'tool', parts: toolParts })
        blocks.push({ wire: block, normalized: { tool: toolParts } })
        continue
      }
      const part = blockToPart(block)
      if (!part) continue
      if (part.type === 'tool_call') toolNames.set(part.id, part.name)
      parts.push(part)
      if (typeof block !== 'string') blocks.push({ wire: block, normalized: part })
    }
    // A turn of tool results only is just its tool messages; any other turn keeps its message, even
    // an empty one, so the conversation's shape survives.
    const messages: Message[] = tools.length > 0 && parts.length === 0 ? tools : [...tools, { role, parts }]
    turns.push({ wire, messages, blocks })
  }
  return turns
}

function readToolResult(block: Record<string, JsonValue>, toolNames: Map<string, string>): Part[] {
  const id = str(block.tool_use_id) ?? ''
  const texts: string[] = []
  const media: Part[] = []
  if (typeof block.content === 'string') texts.push(block.content)
  for (const item of arr(block.content)) {
    const part = blockToPart(item)
    if (part?.type === 'text') texts.push(part.text)
    else if (part?.type === 'media') media.push(part)
  }
  const name = toolNames.get(id)
  const result: ToolResultPart = {
    type: 'tool_result',
    id,
    ...(name !== undefined ? { name } : {}),
    content: texts.join('\n'),
    isError: block.is_error === true,
  }
  return [result, ...media]
}

/**
 * The normalized system prompt: a string is one text part; text blocks are one part each.
 *
 * @example
 * readAnthropicSystem([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }])
 * // [{ type: 'text', text: 'Be brief.' }]
 */
export function readAnthropicSystem(system: unknown): Part[] {
  if (typeof system === 'string') return [{ type: 'text', text: system }]
  const parts: Part[] = []
  for (const block of arr(system)) {
    const part = blockToPart(block)
    if (part) parts.push(part)
  }
  return parts
}
