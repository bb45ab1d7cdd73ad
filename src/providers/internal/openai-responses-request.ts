import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Message, NormalizedRequest, Part, ToolDefinition } from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { guessMediaType, mediaFromBase64, mediaFromDataUrl, mediaFromRef } from './media.ts'
import { arr, obj, omit, str, toolCall } from './openai-common.ts'
import { type ParamNames, readParams } from './openai-params.ts'

/** Responses API request → normalized request. */

export const RESPONSES_PARAMS: ParamNames = { maxTokens: ['max_output_tokens'], stopAndSeed: false }
/** Body fields the Responses adapter reads itself (`text` only for its `format`). */
export const RESPONSES_HANDLED = ['model', 'input', 'instructions', 'tools', 'text']

/** One content part of an input message (or a tool output), normalized; undefined when unknown. */
export function responsesContentPart(part: JsonValue): Part | undefined {
  const p = obj(part)
  switch (p?.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: str(p.text) ?? '' }
    case 'refusal':
      return { type: 'text', text: str(p.refusal) ?? '' }
    case 'input_image': {
      const ref = str(p.image_url) ?? str(p.file_id)
      return ref === undefined ? undefined : mediaFromRef(ref, 'image/*')
    }
    case 'input_file': {
      const type = guessMediaType(str(p.filename) ?? '', 'application/octet-stream')
      const data = str(p.file_data)
      if (data !== undefined) return mediaFromDataUrl(data, type) ?? mediaFromBase64(type, data)
      const ref = str(p.file_url) ?? str(p.file_id)
      return ref === undefined ? undefined : mediaFromRef(ref, type)
    }
    case 'input_audio': {
      const audio = obj(p.input_audio)
      const format = str(audio?.format) ?? 'wav'
      return mediaFromBase64(guessMediaType(`audio.${format}`, `audio/${format}`), str(audio?.data) ?? '')
    }
    default:
      return undefined
  }
}

/** `content` as parts: a string is one text part (none when empty), an array keeps its parts. */
export function responsesContentParts(content: JsonValue | undefined): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  const parts: Part[] = []
  for (const part of arr(content)) {
    const p = responsesContentPart(part)
    if (p) parts.push(p)
  }
  return parts
}

/** A reasoning item as one part: its summary (or, from open models, its reasoning text), opaque when encrypted. */
export function reasoningPart(item: JsonObject): Part {
  const summary = arr(item.summary).map((s) => str(obj(s)?.text) ?? '')
  const content = arr(item.content).map((s) => str(obj(s)?.text) ?? '')
  const text = (summary.length > 0 ? summary : content).join('\n\n')
  return typeof item.encrypted_content === 'string'
    ? { type: 'reasoning', text, opaque: true }
    : { type: 'reasoning', text }
}

/** The type of an input item; an easy message (`{ role, content }`) has none on the wire. */
export function itemType(item: JsonObject): string | undefined {
  return str(item.type) ?? (item.role !== undefined ? 'message' : undefined)
}

export function isSystemItem(item: JsonObject): boolean {
  return itemType(item) === 'message' && (item.role === 'system' || item.role === 'developer')
}

/** One normalized message and the input items it was read from (unknown items ride along with it). */
export interface ItemGroup {
  message: Message
  items: JsonObject[]
}

/** The conversation of a Responses body, item by item. */
export interface ResponsesConversation {
  system: Part[]
  /** System and developer items, each with the number of groups before it (its place in the input). */
  systemItems: Array<{ item: JsonObject; at: number }>
  groups: ItemGroup[]
  /** Items crashlab does not read (item references, built-in tool calls) after the last message. */
  trailing: JsonObject[]
}

/**
 * Reads `instructions` and `input` into system parts and messages. Consecutive assistant-side items
 * (reasoning, assistant messages, function calls) are one assistant turn; every function call output
 * is its own tool message.
 */
export function responsesConversation(body: JsonObject): ResponsesConversation {
  const conv: ResponsesConversation = { system: [], systemItems: [], groups: [], trailing: [] }
  if (typeof body.instructions === 'string' && body.instructions !== '')
    conv.system.push({ type: 'text', text: body.instructions })
  if (typeof body.input === 'string') {
    conv.groups.push({ message: { role: 'user', parts: responsesContentParts(body.input) }, items: [] })
    return conv
  }
  const callNames = new Map<string, string>()
  let pending: JsonObject[] = []
  const open = (role: Message['role'], item: JsonObject): Message => {
    const last = conv.groups.at(-1)
    if (role === 'assistant' && last?.message.role === 'assistant') {
      last.items.push(...pending, item)
      pending = []
      return last.message
    }
    const group = { message: { role, parts: [] as Part[] }, items: [...pending, item] }
    pending = []
    conv.groups.push(group)
    return group.message
  }
  for (const value of arr(body.input)) {
    const item = obj(value)
    if (!item) continue
    const type = itemType(item)
    if (type === 'message' && isSystemItem(item)) {
      conv.system.push(...responsesContentParts(item.content))
      conv.systemItems.push({ item, at: conv.groups.length })
    } else if (type === 'message' && (item.role === 'user' || item.role === 'assistant')) {
      open(item.role, item).parts.push(...responsesContentParts(item.content))
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      const call = toolCall(
        str(item.call_id) ?? '',
        str(item.name) ?? '',
        str(item.arguments) ?? str(item.input) ?? '',
      )
      callNames.set(call.id, call.name)
      open('assistant', item).parts.push(call)
    } else if (type === 'reasoning') {
      open('assistant', item).parts.push(reasoningPart(item))
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const id = str(item.call_id) ?? ''
      const name = callNames.get(id) ?? str(item.name)
      const output = item.output
      const content =
        typeof output === 'string'
          ? output
          : responsesContentParts(output)
              .map((p) => (p.type === 'text' ? p.text : ''))
              .join('')
      const media = responsesContentParts(typeof output === 'string' ? undefined : output).filter(
        (p) => p.type === 'media',
      )
      const result: Part = {
        type: 'tool_result',
        id,
        ...(name === undefined ? {} : { name }),
        content,
        isError: false,
      }
      const message = open('tool', item)
      message.parts.push(result, ...media)
    } else {
      pending.push(item)
    }
  }
  conv.trailing = pending
  return conv
}

/** A function tool, normalized; undefined for built-in and custom tools, which stay under `extra.tools`. */
export function responsesTool(tool: JsonValue): ToolDefinition | undefined {
  const t = obj(tool)
  if (t?.type !== 'function') return undefined
  const def: ToolDefinition = { name: str(t.name) ?? '', parameters: obj(t.parameters) ?? {} }
  const description = str(t.description)
  if (description !== undefined) def.description = description
  return def
}

/**
 * A Responses API request body, normalized. `instructions` and system/developer items are the
 * system parts; `text.format` is the response format (the rest of `text`, e.g. `verbosity`, stays
 * under `extra.text`); built-in tools (web search, file search, MCP, ...) stay under `extra.tools`.
 *
 * @example
 * normalizeResponsesRequest({ method: 'POST', url, headers: {}, body: { model: 'gpt-5', instructions: 'Be brief.', input: 'Hi' } })
 * // { model: 'gpt-5', system: [{ type: 'text', text: 'Be brief.' }], messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], params: {} }
 */
export function normalizeResponsesRequest(wire: WireRequest): NormalizedRequest {
  const body = obj(wire.body) ?? {}
  const conv = responsesConversation(body)
  const tools: ToolDefinition[] = []
  const otherTools: JsonValue[] = []
  for (const tool of arr(body.tools)) {
    const def = responsesTool(tool)
    if (def) tools.push(def)
    else otherTools.push(tool)
  }
  const params = readParams(body, RESPONSES_PARAMS, RESPONSES_HANDLED)
  const extra: Record<string, JsonValue> = { ...params.extra }
  if (otherTools.length > 0) extra.tools = otherTools
  const text = obj(body.text)
  if (text?.format !== undefined && text.format !== null) params.responseFormat = text.format
  const textRest = text ? omit(text, ['format']) : {}
  if (Object.keys(textRest).length > 0) extra.text = textRest
  else if (body.text !== undefined && !text) extra.text = body.text
  if (body.instructions !== undefined && typeof body.instructions !== 'string' && body.instructions !== null)
    extra.instructions = body.instructions
  if (Object.keys(extra).length > 0) params.extra = extra
  else delete params.extra
  return {
    model: str(body.model) ?? '',
    system: conv.system,
    messages: conv.groups.map((g) => g.message),
    tools,
    params,
  }
}
