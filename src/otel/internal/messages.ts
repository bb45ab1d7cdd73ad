import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { FinishReason, Message, Part, Role, ToolCallPart } from '../../case/schema/normalized.ts'
import { parseJson } from './span-reader.ts'

/**
 * The message shapes the conventions write, turned into crashlab's normalized messages. Each reader
 * takes what it can and drops what it cannot map, counting the dropped parts in `lost`.
 */

export interface Lost {
  parts: number
}

const ROLES: Record<string, Role> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  model: 'assistant',
  tool: 'tool',
  function: 'tool',
  ipython: 'tool',
}

const obj = (v: unknown): JsonObject =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {}
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const asText = (v: JsonValue | undefined): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)

/** A tool call part; arguments written as a JSON string are parsed, those that are not JSON kept as text. */
export function toolCall(id: unknown, name: unknown, args: JsonValue | undefined): ToolCallPart {
  const base = { type: 'tool_call' as const, id: asText(id as JsonValue), name: asText(name as JsonValue) }
  if (typeof args !== 'string') return { ...base, args: args ?? {} }
  const parsed = args.trim() === '' ? {} : parseJson(args)
  return parsed === args ? { ...base, args: null, argsText: args } : { ...base, args: parsed }
}

/** The role a convention wrote, or undefined for one crashlab has no place for. */
export function roleOf(v: unknown): Role | undefined {
  return typeof v === 'string' ? ROLES[v.toLowerCase()] : undefined
}

/**
 * The current GenAI conventions' messages (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`): `{ role, parts: [{ type, ... }] }`.
 *
 * @example
 * genAiMessages([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }], lost)
 * // [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]
 */
export function genAiMessages(value: JsonValue | undefined, lost: Lost): Message[] {
  return eachMessage(value, lost, (msg) => ({
    parts: Array.isArray(msg.parts) ? msg.parts.flatMap((p) => genAiPart(obj(p), lost)) : [],
    ...(typeof msg.name === 'string' && { name: msg.name }),
  }))
}

/** Each message of a list with a role crashlab knows; the others are counted as lost. */
function eachMessage(
  value: JsonValue | undefined,
  lost: Lost,
  read: (msg: JsonObject) => Omit<Message, 'role'>,
): Message[] {
  if (!Array.isArray(value)) return []
  const out: Message[] = []
  for (const m of value) {
    const msg = obj(m)
    const role = roleOf(msg.role)
    if (role) out.push({ role, ...read(msg) })
    else lost.parts++
  }
  return out
}

/** One part of the current conventions. */
export function genAiPart(p: JsonObject, lost: Lost): Part[] {
  switch (p.type) {
    case 'text':
      return [{ type: 'text', text: asText(p.content) }]
    case 'reasoning':
      return [{ type: 'reasoning', text: asText(p.content) }]
    case 'tool_call':
      return [toolCall(p.id, p.name, p.arguments)]
    case 'tool_call_response':
      return [
        {
          type: 'tool_result',
          id: asText(p.id),
          // The tool's name is not in the conventions' part; crashlab's export writes it beside the id.
          ...(typeof p.name === 'string' && { name: p.name }),
          content: asText(p.response),
          isError: false,
        },
      ]
    case 'blob':
    case 'uri':
    case 'file':
      return [media(p.mime_type ?? p.modality, p.uri ?? p.file_id)]
    default:
      lost.parts++
      return []
  }
}

/** The instructions of the current conventions: a list of parts, or one string. */
export function genAiSystem(value: JsonValue | undefined, lost: Lost): Part[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }]
  return Array.isArray(value) ? value.flatMap((p) => genAiPart(obj(p), lost)) : []
}

/**
 * A message in the chat-completions shape that the previous GenAI names (`gen_ai.prompt`, the
 * `gen_ai.*.message` events), OpenInference and many SDKs write: `{ role, content, tool_calls,
 * tool_call_id }`, content a string or a list of `{ type: 'text', text }`.
 */
export function chatMessage(m: JsonObject, lost: Lost, fallbackRole?: Role): Message | undefined {
  const role = roleOf(m.role) ?? fallbackRole
  if (!role) {
    lost.parts++
    return undefined
  }
  const parts: Part[] = []
  const callId = text(m.tool_call_id) ?? text(m.id)
  const content = m.content
  const pushText = (t: string) =>
    parts.push(
      role === 'tool'
        ? { type: 'tool_result', id: callId ?? '', content: t, isError: false }
        : { type: 'text', text: t },
    )
  if (typeof content === 'string') pushText(content)
  else if (Array.isArray(content)) {
    for (const c of content) {
      const part = obj(c)
      const t = text(part.text) ?? text(part.content)
      if (t !== undefined && (part.type === undefined || part.type === 'text')) pushText(t)
      else lost.parts++
    }
  } else if (content !== undefined && content !== null) pushText(asText(content))
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : []
  for (const c of calls) {
    const call = obj(c)
    const fn = obj(call.function)
    parts.push(toolCall(call.id, fn.name ?? call.name, fn.arguments ?? call.arguments))
  }
  return { role, parts, ...(typeof m.name === 'string' && role !== 'tool' && { name: m.name }) }
}

/**
 * The AI SDK's prompt (`ai.prompt.messages`): its model messages, content a string or a list of
 * `text`, `tool-call`, `tool-result`, `reasoning`, `image` and `file` parts.
 */
export function aiSdkMessages(value: JsonValue | undefined, lost: Lost): Message[] {
  return eachMessage(value, lost, (msg) => ({
    parts:
      typeof msg.content === 'string'
        ? [{ type: 'text', text: msg.content }]
        : Array.isArray(msg.content)
          ? msg.content.flatMap((c) => aiSdkPart(obj(c), lost))
          : [],
  }))
}

function aiSdkPart(p: JsonObject, lost: Lost): Part[] {
  switch (p.type) {
    case 'text':
      return [{ type: 'text', text: asText(p.text) }]
    case 'reasoning':
      return [{ type: 'reasoning', text: asText(p.text) }]
    case 'tool-call':
      return [toolCall(p.toolCallId, p.toolName, p.input ?? p.args)]
    case 'tool-result': {
      // AI SDK 5 wraps the result as { type: 'json' | 'text' | 'error-text' | ..., value }.
      const output = obj(p.output)
      const wrapped = p.output !== undefined && typeof output.type === 'string'
      const value = wrapped ? output.value : (p.output ?? p.result)
      const isError = p.isError === true || (wrapped && String(output.type).startsWith('error'))
      return [
        {
          type: 'tool_result',
          id: asText(p.toolCallId),
          ...(typeof p.toolName === 'string' && { name: p.toolName }),
          content: asText(value),
          isError,
        },
      ]
    }
    case 'image':
    case 'file':
      return [media(p.mediaType ?? p.mimeType ?? (p.type === 'image' ? 'image' : undefined), undefined)]
    default:
      lost.parts++
      return []
  }
}

function media(mediaType: JsonValue | undefined, ref: JsonValue | undefined): Part {
  return {
    type: 'media',
    mediaType: typeof mediaType === 'string' ? mediaType : 'application/octet-stream',
    bytes: null,
    // A data: URL would put the bytes back into the step; only references are kept.
    ...(typeof ref === 'string' && !ref.startsWith('data:') && { ref }),
  }
}

/** The finish reasons of every convention, mapped to crashlab's five; null for one it has no name for. */
export function finishReasonOf(v: JsonValue | undefined): FinishReason | null {
  const r = Array.isArray(v) ? v[0] : v
  if (typeof r !== 'string') return null
  const key = r.toLowerCase().replace(/-/g, '_')
  if (key === 'stop' || key === 'end_turn' || key === 'stop_sequence' || key === 'complete') return 'stop'
  if (key === 'length' || key === 'max_tokens') return 'length'
  if (key === 'tool_call' || key === 'tool_calls' || key === 'tool_use' || key === 'function_call')
    return 'tool_calls'
  if (key === 'content_filter' || key === 'safety') return 'content_filter'
  if (key === 'error') return 'error'
  return null
}
