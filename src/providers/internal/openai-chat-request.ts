import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Message, NormalizedRequest, Part, ToolDefinition } from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { guessMediaType, mediaFromBase64, mediaFromDataUrl, mediaFromRef } from './media.ts'
import { arr, obj, str, toolCall } from './openai-common.ts'
import { type ParamNames, readParams } from './openai-params.ts'

/** Chat Completions request → normalized request. */

export const CHAT_PARAMS: ParamNames = {
  maxTokens: ['max_completion_tokens', 'max_tokens'],
  stopAndSeed: true,
}
/** Body fields the chat adapter reads itself. */
export const CHAT_HANDLED = ['model', 'messages', 'tools']

/** One content part of a chat message, normalized; undefined for a part type crashlab does not know. */
export function chatContentPart(part: JsonValue): Part | undefined {
  const p = obj(part)
  switch (p?.type) {
    case 'text':
      return { type: 'text', text: str(p.text) ?? '' }
    case 'refusal':
      return { type: 'text', text: str(p.refusal) ?? '' }
    case 'image_url': {
      const url = str(obj(p.image_url)?.url) ?? str(p.image_url)
      return url === undefined ? undefined : mediaFromRef(url, 'image/*')
    }
    case 'input_audio': {
      const audio = obj(p.input_audio)
      const format = str(audio?.format) ?? 'wav'
      return mediaFromBase64(guessMediaType(`audio.${format}`, `audio/${format}`), str(audio?.data) ?? '')
    }
    case 'file': {
      const file = obj(p.file)
      const type = guessMediaType(str(file?.filename) ?? '', 'application/octet-stream')
      const data = str(file?.file_data)
      if (data !== undefined) return mediaFromDataUrl(data, type) ?? mediaFromBase64(type, data)
      const id = str(file?.file_id)
      return id === undefined ? undefined : mediaFromRef(id, type)
    }
    default:
      return undefined
  }
}

/**
 * A message's `content` as parts. A string is one text part (none when empty: SDKs send `""` beside
 * tool calls); an array keeps its parts as they are, empty ones included.
 */
export function chatContentParts(content: JsonValue | undefined): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  const parts: Part[] = []
  for (const part of arr(content)) {
    const p = chatContentPart(part)
    if (p) parts.push(p)
  }
  return parts
}

/** The text of a tool message's content: a string, or its text parts joined. */
function contentText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content
  return arr(content)
    .map((p) => (obj(p)?.type === 'text' ? (str(obj(p)?.text) ?? '') : ''))
    .join('')
}

export function isSystemMessage(message: JsonObject): boolean {
  return message.role === 'system' || message.role === 'developer'
}

/**
 * One non-system chat message, normalized; `callNames` maps the tool-call ids seen so far to their
 * tool names, so that a tool result carries the name of the tool it answers.
 */
export function chatMessage(m: JsonObject, callNames: Map<string, string>): Message | undefined {
  const role = m.role
  let message: Message
  if (role === 'user') {
    message = { role: 'user', parts: chatContentParts(m.content) }
  } else if (role === 'assistant') {
    const parts: Part[] = []
    // Reasoning of compatible servers (DeepSeek, vLLM: `reasoning_content`; OpenRouter: `reasoning`)
    const reasoning = str(m.reasoning_content) ?? str(m.reasoning)
    if (reasoning) parts.push({ type: 'reasoning', text: reasoning })
    parts.push(...chatContentParts(m.content))
    const refusal = str(m.refusal)
    if (refusal) parts.push({ type: 'text', text: refusal })
    for (const call of arr(m.tool_calls)) {
      const c = obj(call)
      const fn = obj(c?.function) ?? obj(c?.custom)
      if (!c || !fn) continue
      const part = toolCall(str(c.id) ?? '', str(fn.name) ?? '', str(fn.arguments) ?? str(fn.input) ?? '')
      callNames.set(part.id, part.name)
      parts.push(part)
    }
    message = { role: 'assistant', parts }
  } else if (role === 'tool') {
    const id = str(m.tool_call_id) ?? ''
    const name = callNames.get(id)
    const content = contentText(m.content)
    const media = chatContentParts(m.content).filter((p) => p.type === 'media')
    message = {
      role: 'tool',
      parts: [
        { type: 'tool_result', id, ...(name === undefined ? {} : { name }), content, isError: false },
        ...media,
      ],
    }
  } else {
    return undefined
  }
  const name = str(m.name)
  if (name !== undefined && role !== 'tool') message.name = name
  return message
}

/** The conversation of a chat body: the system parts, and each other message beside the wire message it came from. */
export function chatConversation(body: JsonObject): {
  system: Part[]
  systemWire: JsonObject[]
  turns: Array<{ wire: JsonObject; message: Message }>
} {
  const system: Part[] = []
  const systemWire: JsonObject[] = []
  const turns: Array<{ wire: JsonObject; message: Message }> = []
  const callNames = new Map<string, string>()
  for (const item of arr(body.messages)) {
    const m = obj(item)
    if (!m) continue
    if (isSystemMessage(m)) {
      system.push(...chatContentParts(m.content))
      systemWire.push(m)
      continue
    }
    const message = chatMessage(m, callNames)
    if (message) turns.push({ wire: m, message })
  }
  return { system, systemWire, turns }
}

/** A function tool, normalized; undefined for other tool types (custom, built-in), which stay on the wire. */
export function chatTool(tool: JsonValue): ToolDefinition | undefined {
  const t = obj(tool)
  const fn = obj(t?.function)
  if (t?.type !== 'function' || !fn) return undefined
  const def: ToolDefinition = { name: str(fn.name) ?? '', parameters: obj(fn.parameters) ?? {} }
  const description = str(fn.description)
  if (description !== undefined) def.description = description
  return def
}

/**
 * A Chat Completions request body, normalized. Function tools become `tools`; any other tool type
 * (custom tools, provider tools of compatible servers) is kept under `extra.tools`, so it still takes
 * part in the request hash and is written back.
 *
 * @example
 * normalizeChatRequest({ method: 'POST', url, headers: {}, body: { model: 'gpt-5', messages: [{ role: 'user', content: 'Hi' }] } })
 * // { model: 'gpt-5', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], params: {} }
 */
export function normalizeChatRequest(wire: WireRequest): NormalizedRequest {
  const body = obj(wire.body) ?? {}
  const { system, turns } = chatConversation(body)
  const tools: ToolDefinition[] = []
  const otherTools: JsonValue[] = []
  for (const tool of arr(body.tools)) {
    const def = chatTool(tool)
    if (def) tools.push(def)
    else otherTools.push(tool)
  }
  const params = readParams(body, CHAT_PARAMS, CHAT_HANDLED)
  if (otherTools.length > 0) params.extra = { ...params.extra, tools: otherTools }
  return { model: str(body.model) ?? '', system, messages: turns.map((t) => t.message), tools, params }
}
