import type { Message, Part } from '../../case/schema/normalized.ts'
import type { ReadBlock, ReadTurn } from './anthropic-gemini-turns.ts'
import { arr, isRecord, str } from './anthropic-gemini-values.ts'
import { field, readFunctionResponse, readGeminiPart, syntheticCallId } from './gemini-parts.ts'

/**
 * Gemini `contents` → normalized messages. Roles are `user` and `model` (→ `assistant`); a user turn
 * answering function calls carries `functionResponse` parts, each of which becomes its own `tool`
 * message, and the rest of the turn follows as one user message. A function response without an id
 * answers the first unanswered call of its name in the model turn before it.
 */

interface PendingCall {
  id: string
  name: string
  answered: boolean
}

/**
 * Reads every content, keeping the link from each to its normalized messages.
 *
 * @example
 * readGeminiContents([{ role: 'model', parts: [{ functionCall: { name: 'get_order', args: {} } }] }])[0]?.messages[0]?.parts[0]
 * // { type: 'tool_call', id: 'get_order_0', name: 'get_order', args: {} }
 */
export function readGeminiContents(raw: unknown): ReadTurn[] {
  let pending: PendingCall[] = []
  const turns: ReadTurn[] = []
  for (const wire of arr(raw)) {
    const content = isRecord(wire) ? wire : {}
    const role: Message['role'] = content.role === 'model' ? 'assistant' : 'user'
    const blocks: ReadBlock[] = []
    const tools: Message[] = []
    const parts: Part[] = []
    const calls: PendingCall[] = []
    let answers = 0
    for (const part of arr(content.parts)) {
      const response = isRecord(part) ? field(part, 'functionResponse') : undefined
      if (isRecord(response)) {
        const id = str(response.id) ?? answerId(pending, str(response.name) ?? '', answers)
        for (const call of pending) if (call.id === id) call.answered = true
        answers++
        const toolParts = [readFunctionResponse(response, id)]
        tools.push({ role: 'tool', parts: toolParts })
        blocks.push({ wire: part, normalized: { tool: toolParts } })
        continue
      }
      const read = readGeminiPart(part, calls.length)
      if (!read) continue
      if (read.type === 'tool_call') calls.push({ id: read.id, name: read.name, answered: false })
      parts.push(read)
      blocks.push({ wire: part, normalized: read })
    }
    if (role === 'assistant') pending = calls
    const messages: Message[] = tools.length > 0 && parts.length === 0 ? tools : [...tools, { role, parts }]
    turns.push({ wire, messages, blocks })
  }
  return turns
}

function answerId(pending: PendingCall[], name: string, position: number): string {
  const call = pending.find((c) => !c.answered && c.name === name)
  return call ? call.id : syntheticCallId(name, position)
}

/**
 * The normalized system prompt of a `systemInstruction` (a content, or a bare string).
 *
 * @example
 * readGeminiSystem({ parts: [{ text: 'Be brief.' }] }) // [{ type: 'text', text: 'Be brief.' }]
 */
export function readGeminiSystem(system: unknown): Part[] {
  if (typeof system === 'string') return [{ type: 'text', text: system }]
  if (!isRecord(system)) return []
  const parts: Part[] = []
  for (const part of arr(system.parts)) {
    const read = readGeminiPart(part, 0)
    if (read) parts.push(read)
  }
  return parts
}
