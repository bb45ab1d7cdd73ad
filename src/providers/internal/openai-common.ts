import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { FinishReason, MediaPart, Part, ToolCallPart, Usage } from '../../case/schema/normalized.ts'
import { CrashlabError } from '../../errors.ts'

/**
 * Small readers and writers the two OpenAI adapters share. Wire bodies are untrusted JSON (recorded
 * from any OpenAI-compatible server), so every reader checks the shape it expects and skips what it
 * does not know instead of throwing.
 */

/** The value as a JSON object, or undefined. */
export function obj(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined
}

/** The value as an array, or an empty one. */
export function arr(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : []
}

/** The value as a string, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** The value as a finite number, or undefined. */
export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** Deep equality of JSON values (key order ignored), to decide whether an original wire element can be kept. */
export function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b)
}

/** `value` without `keys`: the fields of a wire element that the normalized shape does not describe. */
export function omit(value: JsonObject | undefined, keys: readonly string[]): JsonObject {
  const out: JsonObject = {}
  if (!value) return out
  for (const [k, v] of Object.entries(value)) if (!keys.includes(k)) out[k] = v
  return out
}

/**
 * A tool call from the model's argument text. Arguments that are not JSON (a cut stream, a model
 * that wrote prose) are kept verbatim in `argsText` with `args: null`, so nothing is lost.
 *
 * @example
 * toolCall('call_1', 'get_order', '{"order_id":"A17"}') // { type: 'tool_call', id: 'call_1', name: 'get_order', args: { order_id: 'A17' } }
 */
export function toolCall(id: string, name: string, argsText: string): ToolCallPart {
  try {
    return { type: 'tool_call', id, name, args: JSON.parse(argsText) as JsonValue }
  } catch {
    return { type: 'tool_call', id, name, args: null, argsText }
  }
}

/**
 * The argument text of a tool call: the original text when the model's was not JSON.
 *
 * @example
 * argsTextOf({ type: 'tool_call', id: 'c', name: 'f', args: null, argsText: '{"a":' }) // '{"a":'
 */
export function argsTextOf(call: ToolCallPart): string {
  return call.args === null && call.argsText !== undefined ? call.argsText : JSON.stringify(call.args)
}

/**
 * Usage in the neutral convention: input counts every input token (cached ones too), output every
 * output token (reasoning too). OpenAI's `prompt_tokens`/`input_tokens` and
 * `completion_tokens`/`output_tokens` already count that way, so the details are copied, not
 * subtracted. A detail the server did not send stays absent rather than becoming 0.
 *
 * @example
 * usageOf(1117, 46, 1024, undefined) // { inputTokens: 1117, outputTokens: 46, cachedTokens: 1024 }
 */
export function usageOf(input: unknown, output: unknown, cached: unknown, reasoning: unknown): Usage | null {
  const inputTokens = num(input)
  const outputTokens = num(output)
  if (inputTokens === undefined && outputTokens === undefined) return null
  const usage: Usage = { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 }
  const c = num(cached)
  const r = num(reasoning)
  if (c !== undefined) usage.cachedTokens = c
  if (r !== undefined) usage.reasoningTokens = r
  return usage
}

/**
 * Chat `finish_reason` values (and those of compatible servers) in the neutral vocabulary.
 *
 * @example
 * chatFinishReason('function_call') // 'tool_calls'
 */
export function chatFinishReason(value: unknown): FinishReason | null {
  switch (value) {
    case null:
    case undefined:
      return null
    case 'length':
    case 'max_tokens':
      return 'length'
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool_calls'
    case 'content_filter':
      return 'content_filter'
    case 'error':
      return 'error'
    default:
      // 'stop' and the end-of-turn names some compatible servers use ('eos', 'end_turn')
      return 'stop'
  }
}

/**
 * A deterministic id of the given prefix, derived from the response id, so that a written response
 * is the same every time it is written (`msg_…`, `fc_…`, `call_…`, `rs_…`).
 *
 * @example
 * derivedId('msg_', 'resp_abc', 0) // 'msg_…' (48 hex digits, the same on every call)
 */
export function derivedId(prefix: string, seed: string, index: number | string): string {
  return (
    prefix + createHash('sha256').update(`${seed}\u0000${prefix}\u0000${index}`).digest('hex').slice(0, 48)
  )
}

/**
 * Splits text into the pieces a streaming server would send: words with their trailing space, so
 * that assembling a written stream exercises the same concatenation a real one does.
 */
export function deltas(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? []
}

/** Splits text into pieces of `size` code points: how argument fragments of a streamed tool call arrive. */
export function pieces(text: string, size: number): string[] {
  const points = Array.from(text)
  const out: string[] = []
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''))
  return out
}

/** The tool call's id, or a derived `call_…` id when it has none (a tool call needs one on the wire). */
export function callIdOf(call: ToolCallPart, seed: string, index: number): string {
  return call.id !== '' ? call.id : derivedId('call_', seed, index)
}

/**
 * Media on the way back to the wire. A placeholder holds no bytes, so a media part can only be
 * written as the original wire part it came from (found by reading every original part and
 * comparing placeholders), or, for media passed by reference, rebuilt from its `ref`.
 *
 * @example
 * const find = mediaWireFinder(originalParts, chatContentPart, (m) => m.ref ? { type: 'image_url', image_url: { url: m.ref } } : undefined)
 * find({ type: 'media', mediaType: 'image/png', bytes: 68, sha256: '…' }) // the original `image_url` part with its data: URL
 */
export function mediaWireFinder(
  candidates: readonly JsonValue[],
  read: (part: JsonValue) => Part | undefined,
  fromRef: (media: MediaPart) => JsonValue | undefined,
): (media: MediaPart) => JsonValue {
  const known: Array<[Part, JsonValue]> = []
  for (const candidate of candidates) {
    const part = read(candidate)
    if (part?.type === 'media') known.push([part, candidate])
  }
  return (media) => {
    const found = known.find(([part]) => sameJson(part, media))
    if (found) return found[1]
    const built = fromRef(media)
    if (built !== undefined) return built
    throw new CrashlabError(
      'E_MEDIA_UNWRITABLE',
      `cannot write a ${media.mediaType} media part of ${media.bytes ?? '?'} bytes back to the wire: ` +
        'its bytes are not kept and the original request has no part with the same placeholder. ' +
        'Keep the media part as it was recorded, or pass it by URL or file id (`ref`).',
    )
  }
}
