import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type {
  MediaPart,
  Message,
  NormalizedRequest,
  Part,
  ToolCallPart,
} from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import {
  CHAT_PARAMS,
  chatContentPart,
  chatContentParts,
  chatConversation,
  chatMessage,
  chatTool,
  normalizeChatRequest,
} from './openai-chat-request.ts'
import { argsTextOf, arr, mediaWireFinder, obj, omit, sameJson, str, toolCall } from './openai-common.ts'
import { assembleBody, writeParams } from './openai-params.ts'

/**
 * Normalized request → Chat Completions body. Every wire element that still normalizes to the same
 * value is kept verbatim (byte-for-byte arguments, `detail`, `cache_control`, names); changed ones are
 * rebuilt on top of the original element in the same position, so its unknown fields survive.
 */

const MESSAGE_KEYS = [
  'role',
  'content',
  'tool_calls',
  'tool_call_id',
  'name',
  'reasoning_content',
  'reasoning',
  'refusal',
]

/** Content parts on the wire: one string for a single text, an array otherwise, null for none. */
function writeContent(parts: Part[], findMedia: (m: MediaPart) => JsonValue, asArray = false): JsonValue {
  if (parts.length === 0) return null
  if (!asArray && parts.length === 1 && parts[0]!.type === 'text' && parts[0]!.text !== '')
    return parts[0]!.text
  return parts.map((p) =>
    p.type === 'media' ? findMedia(p) : { type: 'text', text: p.type === 'text' ? p.text : '' },
  )
}

function writeToolCall(call: ToolCallPart, template: JsonObject | undefined): JsonObject {
  if (template) {
    const fn = obj(template.function) ?? obj(template.custom)
    const old = toolCall(
      str(template.id) ?? '',
      str(fn?.name) ?? '',
      str(fn?.arguments) ?? str(fn?.input) ?? '',
    )
    if (sameJson(old, call)) return template
    if (template.type === 'custom')
      return {
        ...template,
        id: call.id,
        custom: { ...obj(template.custom), name: call.name, input: argsTextOf(call) },
      }
  }
  const fn = { ...obj(template?.function), name: call.name, arguments: argsTextOf(call) }
  return { ...template, id: call.id, type: 'function', function: fn }
}

/** The chat messages of one normalized message (a tool message with several results becomes several). */
function writeMessage(
  message: Message,
  template: JsonObject | undefined,
  calls: Map<string, JsonObject>,
  findMedia: (m: MediaPart) => JsonValue,
): JsonObject[] {
  const base = template && template.role === message.role ? omit(template, MESSAGE_KEYS) : {}
  const named: JsonObject = message.name === undefined ? {} : { name: message.name }
  const asArray = Array.isArray(template?.content)
  if (message.role === 'tool') {
    const media = message.parts.filter((p) => p.type === 'media')
    const results = message.parts.filter((p) => p.type === 'tool_result')
    return results.map((r, i) => {
      const extra = i === results.length - 1 ? media : []
      const content =
        extra.length === 0
          ? r.content
          : writeContent([{ type: 'text', text: r.content }, ...extra], findMedia)
      return { role: 'tool', ...base, tool_call_id: r.id, content }
    })
  }
  if (message.role !== 'assistant') {
    const content = writeContent(message.parts, findMedia, asArray) ?? ''
    return [{ role: message.role, ...base, ...named, content }]
  }
  const reasoning = message.parts.filter((p) => p.type === 'reasoning').map((p) => p.text)
  const content = message.parts.filter((p) => p.type === 'text' || p.type === 'media')
  const toolCalls = message.parts.filter((p) => p.type === 'tool_call')
  const out: JsonObject = { role: 'assistant', ...base, ...named }
  if (reasoning.length > 0)
    out[template?.reasoning !== undefined ? 'reasoning' : 'reasoning_content'] = reasoning.join('\n\n')
  out.content = writeContent(content, findMedia, asArray) ?? (toolCalls.length > 0 ? null : '')
  if (toolCalls.length > 0) out.tool_calls = toolCalls.map((c) => writeToolCall(c, calls.get(c.id)))
  return [out]
}

/** The system parts as the original's system/developer messages, or as one message in the original's role. */
function writeSystem(
  system: Part[],
  systemWire: JsonObject[],
  findMedia: (m: MediaPart) => JsonValue,
): JsonObject[] {
  const original = systemWire.flatMap((m) => chatContentParts(m.content))
  if (sameJson(original, system)) return systemWire
  if (system.length === 0) return []
  const first = systemWire[0]
  const role = str(first?.role) ?? 'system'
  return [{ ...omit(first, ['role', 'content']), role, content: writeContent(system, findMedia) ?? '' }]
}

/**
 * Writes `normalized` as a Chat Completions request, on top of `original`: method, URL and headers
 * are the original's; body fields the normalized shape does not describe come from `params.extra`
 * (or, when it has none, from the original body).
 *
 * @example
 * writeChatRequest({ ...normalizeChatRequest(wire), params: { temperature: 0 } }, wire).body
 * // { model: 'gpt-5', messages: [...], temperature: 0 }
 */
export function writeChatRequest(normalized: NormalizedRequest, original: WireRequest): WireRequest {
  const body = obj(original.body) ?? {}
  const { systemWire, turns } = chatConversation(body)
  const findMedia = mediaWireFinder(
    arr(body.messages).flatMap((m) => arr(obj(m)?.content)),
    chatContentPart,
    (media): JsonValue | undefined => {
      if (media.ref === undefined) return undefined
      if (media.ref.startsWith('http')) return { type: 'image_url', image_url: { url: media.ref } }
      return { type: 'file', file: { file_id: media.ref } }
    },
  )
  const calls = new Map<string, JsonObject>()
  for (const turn of turns)
    for (const call of arr(turn.wire.tool_calls)) {
      const c = obj(call)
      if (c && typeof c.id === 'string') calls.set(c.id, c)
    }

  const messages: JsonObject[] = writeSystem(normalized.system, systemWire, findMedia)
  const callNames = new Map<string, string>()
  normalized.messages.forEach((message, i) => {
    const template = turns[i]?.wire
    // A message that still reads the same is sent as recorded, in its exact wire form.
    if (template && sameJson(chatMessage(template, new Map(callNames)), message)) messages.push(template)
    else messages.push(...writeMessage(message, template, calls, findMedia))
    for (const p of message.parts) if (p.type === 'tool_call') callNames.set(p.id, p.name)
  })

  const originalTools = arr(body.tools)
  const tools: JsonValue[] = normalized.tools.map((def) => {
    const template = originalTools.find((t) => chatTool(t)?.name === def.name)
    if (template !== undefined && sameJson(chatTool(template), def)) return template
    const fn: JsonObject = { ...omit(obj(obj(template)?.function), ['name', 'description', 'parameters']) }
    fn.name = def.name
    if (def.description !== undefined) fn.description = def.description
    fn.parameters = def.parameters
    return { ...obj(template), type: 'function', function: fn }
  })
  // Without an `extra` (a request normalized elsewhere), the original's own provider options stay.
  const extra = normalized.params.extra ?? normalizeChatRequest(original).params.extra ?? {}
  const otherTools = arr(extra.tools)
  const described = {
    model: normalized.model,
    messages,
    tools:
      tools.length + otherTools.length > 0 || body.tools !== undefined
        ? [...tools, ...otherTools]
        : undefined,
    ...writeParams(normalized.params, body, CHAT_PARAMS, 'chat'),
  }
  return { ...original, body: assembleBody(body, described, omit(extra, ['tools'])) }
}
