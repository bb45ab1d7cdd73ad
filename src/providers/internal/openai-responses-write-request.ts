import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { MediaPart, Message, NormalizedRequest, Part } from '../../case/schema/normalized.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { argsTextOf, arr, mediaWireFinder, obj, omit, sameJson, str, toolCall } from './openai-common.ts'
import { assembleBody, writeParams } from './openai-params.ts'
import {
  type ItemGroup,
  itemType,
  normalizeResponsesRequest,
  RESPONSES_PARAMS,
  reasoningPart,
  responsesContentPart,
  responsesContentParts,
  responsesConversation,
  responsesTool,
} from './openai-responses-request.ts'

/**
 * Normalized request → Responses API body. A message whose items still read the same is sent as its
 * recorded items (server ids, `status`, `phase`, encrypted reasoning and unknown items included);
 * a changed one is rebuilt on top of the original items of the same place.
 */

type FindMedia = (media: MediaPart) => JsonValue

const KNOWN_ITEMS = [
  'message',
  'function_call',
  'custom_tool_call',
  'reasoning',
  'function_call_output',
  'custom_tool_call_output',
]

/** Message content: a string for one text when the original used one (or there is none), else parts. */
function content(
  parts: Part[],
  textType: string,
  template: JsonObject | undefined,
  find: FindMedia,
): JsonValue {
  const only = parts[0]
  if (parts.length === 1 && only?.type === 'text' && only.text !== '' && !Array.isArray(template?.content))
    return only.text
  const firstType = str(obj(arr(template?.content)[0])?.type)
  const type = firstType === 'input_text' || firstType === 'output_text' ? firstType : textType
  return parts.map((p) => {
    if (p.type === 'media') return find(p)
    const text = p.type === 'text' ? p.text : ''
    return type === 'output_text' ? { type, text, annotations: [] } : { type, text }
  })
}

function message(role: string, parts: Part[], template: JsonObject | undefined, find: FindMedia): JsonObject {
  if (template && sameJson(responsesContentParts(template.content), parts)) return template
  const textType = role === 'assistant' ? 'output_text' : 'input_text'
  return { ...omit(template, ['role', 'content']), role, content: content(parts, textType, template, find) }
}

/** The items of one assistant turn, each rebuilt on the original item it replaces. */
function assistantItems(
  parts: Part[],
  group: ItemGroup | undefined,
  calls: Map<string, JsonObject>,
  find: FindMedia,
) {
  const items = group?.items ?? []
  const reasoning = items.filter((i) => itemType(i) === 'reasoning')
  const messages = items.filter((i) => itemType(i) === 'message')
  const out: JsonObject[] = []
  let run: Part[] = []
  const flush = () => {
    if (run.length > 0) out.push(message('assistant', run, messages.shift(), find))
    run = []
  }
  for (const part of parts) {
    if (part.type === 'text' || part.type === 'media') {
      run.push(part)
      continue
    }
    flush()
    if (part.type === 'reasoning') {
      const t = reasoning.shift()
      if (t && sameJson(reasoningPart(t), part)) out.push(t)
      else {
        const item: JsonObject = {
          ...omit(t, ['summary', 'content', 'encrypted_content']),
          type: 'reasoning',
        }
        item.summary = part.text === '' ? [] : [{ type: 'summary_text', text: part.text }]
        if (part.opaque && typeof t?.encrypted_content === 'string')
          item.encrypted_content = t.encrypted_content
        out.push(item)
      }
    } else if (part.type === 'tool_call') {
      const t = calls.get(part.id)
      const old =
        t && toolCall(str(t.call_id) ?? '', str(t.name) ?? '', str(t.arguments) ?? str(t.input) ?? '')
      if (t && sameJson(old, part)) out.push(t)
      else if (t?.type === 'custom_tool_call')
        out.push({ ...t, call_id: part.id, name: part.name, input: argsTextOf(part) })
      else
        out.push({
          ...t,
          type: 'function_call',
          call_id: part.id,
          name: part.name,
          arguments: argsTextOf(part),
        })
    }
  }
  flush()
  return out
}

function groupItems(
  m: Message,
  group: ItemGroup | undefined,
  calls: Map<string, JsonObject>,
  find: FindMedia,
) {
  const unknown = (group?.items ?? []).filter((i) => !KNOWN_ITEMS.includes(itemType(i) ?? ''))
  if (m.role === 'assistant') return [...unknown, ...assistantItems(m.parts, group, calls, find)]
  if (m.role !== 'tool') {
    const template = group?.items.find((i) => itemType(i) === 'message' && i.role === m.role)
    return [...unknown, message(m.role, m.parts, template, find)]
  }
  const outputs = (group?.items ?? []).filter((i) => (itemType(i) ?? '').endsWith('call_output'))
  const media = m.parts.filter((p) => p.type === 'media')
  const results = m.parts.filter((p) => p.type === 'tool_result')
  return [
    ...unknown,
    ...results.map((r, i) => {
      const t = outputs.find((o) => o.call_id === r.id) ?? outputs[i]
      const extra = i === results.length - 1 ? media : []
      const output: JsonValue =
        extra.length === 0 && !Array.isArray(t?.output)
          ? r.content
          : [{ type: 'input_text', text: r.content }, ...extra.map((p) => find(p))]
      return {
        ...omit(t, ['output', 'call_id']),
        type: str(t?.type) ?? 'function_call_output',
        call_id: r.id,
        output,
      }
    }),
  ]
}

function mediaFromRefWire(media: MediaPart): JsonValue | undefined {
  if (media.ref === undefined) return undefined
  const image = media.mediaType.startsWith('image/')
  if (media.ref.startsWith('http'))
    return image
      ? { type: 'input_image', image_url: media.ref, detail: 'auto' }
      : { type: 'input_file', file_url: media.ref }
  return image
    ? { type: 'input_image', file_id: media.ref, detail: 'auto' }
    : { type: 'input_file', file_id: media.ref }
}

/**
 * Writes `normalized` as a Responses API request on top of `original`. The first system text goes to
 * `instructions` when the original used it (or had no system at all), the rest to a system item in
 * the original's role (`developer` by default).
 *
 * @example
 * writeResponsesRequest({ ...normalizeResponsesRequest(wire), system: [{ type: 'text', text: 'Be terse.' }] }, wire).body.instructions
 * // 'Be terse.'
 */
export function writeResponsesRequest(normalized: NormalizedRequest, original: WireRequest): WireRequest {
  const body = obj(original.body) ?? {}
  const conv = responsesConversation(body)
  const allItems = arr(body.input).flatMap((i) => (obj(i) ? [obj(i)!] : []))
  const find = mediaWireFinder(
    allItems.flatMap((i) => [...arr(i.content), ...arr(i.output)]),
    responsesContentPart,
    mediaFromRefWire,
  )
  const calls = new Map<string, JsonObject>()
  for (const item of allItems)
    if (
      (item.type === 'function_call' || item.type === 'custom_tool_call') &&
      typeof item.call_id === 'string'
    )
      calls.set(item.call_id, item)

  // System: unchanged → as recorded, in place; changed → instructions first, the rest one item up front.
  const systemSame = sameJson(conv.system, normalized.system)
  let instructions: JsonValue | undefined = body.instructions
  let systemItems = conv.systemItems
  if (!systemSame) {
    const first = normalized.system[0]
    const useInstructions = typeof body.instructions === 'string' || conv.systemItems.length === 0
    const toInstructions = useInstructions && first?.type === 'text' && first.text !== ''
    instructions = toInstructions ? first.text : undefined
    const rest = toInstructions ? normalized.system.slice(1) : normalized.system
    const template = conv.systemItems[0]?.item
    const role = str(template?.role) ?? 'developer'
    systemItems = rest.length === 0 ? [] : [{ item: message(role, rest, template, find), at: 0 }]
  }

  const groups = normalized.messages.map((m, i) => {
    const group = conv.groups[i]
    if (group && group.items.length > 0 && sameJson(group.message, m)) return group.items
    return groupItems(m, group, calls, find)
  })
  let input: JsonValue
  const only = normalized.messages[0]?.parts[0]
  const single = normalized.messages.length === 1 && normalized.messages[0]!.role === 'user'
  if (
    typeof body.input === 'string' &&
    single &&
    systemItems.length === 0 &&
    only?.type === 'text' &&
    only.text !== '' &&
    normalized.messages[0]!.parts.length === 1
  )
    input = only.text
  else {
    input = []
    for (let g = 0; g <= groups.length; g++) {
      for (const s of systemItems) if (Math.min(s.at, groups.length) === g) input.push(s.item)
      if (g < groups.length) input.push(...groups[g]!)
    }
    input.push(...conv.trailing)
  }

  const extra = normalized.params.extra ?? normalizeResponsesRequest(original).params.extra ?? {}
  if (instructions === undefined && extra.instructions !== undefined) instructions = extra.instructions
  const originalTools = arr(body.tools)
  const tools: JsonValue[] = normalized.tools.map((def) => {
    const template = originalTools.find((t) => responsesTool(t)?.name === def.name)
    if (template !== undefined && sameJson(responsesTool(template), def)) return template
    const tool: JsonObject = {
      type: 'function',
      ...omit(obj(template), ['type', 'name', 'description', 'parameters']),
    }
    tool.name = def.name
    if (def.description !== undefined) tool.description = def.description
    tool.parameters = def.parameters
    return tool
  })
  const otherTools = arr(extra.tools)
  const textRest = obj(extra.text)
  const format = normalized.params.responseFormat
  const text =
    format !== undefined || textRest
      ? { ...(format !== undefined ? { format } : {}), ...textRest }
      : extra.text
  const described = {
    model: normalized.model,
    instructions,
    input,
    tools:
      tools.length + otherTools.length > 0 || body.tools !== undefined
        ? [...tools, ...otherTools]
        : undefined,
    text,
    ...writeParams(normalized.params, body, RESPONSES_PARAMS, 'responses'),
  }
  return { ...original, body: assembleBody(body, described, omit(extra, ['tools', 'text', 'instructions'])) }
}
