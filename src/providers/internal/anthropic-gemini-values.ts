import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { ToolCallPart } from '../../case/schema/normalized.ts'

/**
 * Small readers for untyped wire JSON, shared by the Anthropic and Gemini adapters. A recorded body is
 * whatever the client sent: every reader tolerates a missing or mistyped field instead of throwing,
 * so a malformed request still records.
 */

/**
 * True for a plain JSON object (not null, not an array).
 *
 * @example
 * isRecord({ a: 1 }) // true
 * isRecord([1])      // false
 */
export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The value when it is a string, else undefined.
 *
 * @example
 * str('a') // 'a'
 * str(1)   // undefined
 */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/**
 * The value when it is a finite number, else undefined.
 *
 * @example
 * num(3) // 3
 */
export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/**
 * The value when it is an array, else an empty one, so loops over optional wire arrays need no guard.
 *
 * @example
 * arr(undefined) // []
 */
export function arr(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : []
}

/**
 * The fields of `obj` other than `known`, or undefined when there are none: what a normalized field
 * does not describe, kept under its wire name in `params.extra`.
 *
 * @example
 * rest({ type: 'auto', disable_parallel_tool_use: true }, ['type']) // { disable_parallel_tool_use: true }
 */
export function rest(obj: JsonObject, known: readonly string[]): JsonObject | undefined {
  let out: JsonObject | undefined
  for (const [key, value] of Object.entries(obj)) {
    if (known.includes(key) || value === undefined) continue
    out ??= {}
    out[key] = value
  }
  return out
}

/**
 * A rewritten body: the original's keys first, in their order, then new ones; undefined values
 * dropped. A re-recorded request then reads as a small diff.
 *
 * @example
 * orderedBody({ b: 2, a: 1, c: undefined }, ['a', 'c']) // { a: 1, b: 2 }
 */
export function orderedBody(
  out: Record<string, JsonValue | undefined>,
  originalKeys: readonly string[],
): JsonObject {
  const body: JsonObject = {}
  for (const key of [...originalKeys, ...Object.keys(out)]) {
    const value = out[key]
    if (value !== undefined && !(key in body)) body[key] = value
  }
  return body
}

/**
 * A tool call from arguments written as JSON text (a stream's `partial_json` fragments): parsed when
 * they are whole JSON, else `args: null` with the text kept in `argsText`. Empty text is `{}`, as the
 * SDKs read a tool that takes no input.
 *
 * @example
 * toolCallFromText('toolu_1', 'get_order', '{"order_id":"A1') // { ..., args: null, argsText: '{"order_id":"A1' }
 */
export function toolCallFromText(id: string, name: string, text: string): ToolCallPart {
  if (text.trim() === '') return { type: 'tool_call', id, name, args: {} }
  try {
    return { type: 'tool_call', id, name, args: JSON.parse(text) as JsonValue }
  } catch {
    return { type: 'tool_call', id, name, args: null, argsText: text }
  }
}

/**
 * The JSON text a tool call's arguments go on the wire as: the kept text of unparsable arguments, else
 * the arguments serialized.
 *
 * @example
 * argsTextOf({ type: 'tool_call', id: 'a', name: 'f', args: { x: 1 } }) // '{"x":1}'
 */
export function argsTextOf(call: ToolCallPart): string {
  if (call.args === null && call.argsText !== undefined) return call.argsText
  return JSON.stringify(call.args)
}

/** The length of the text deltas of written streams: a few tokens, as providers send them. */
const DEFAULT_CHUNK_SIZE = 16

/**
 * Cuts `text` into pieces of at most `size` characters, never inside a surrogate pair; an empty text
 * is one empty piece, so a written stream still opens and closes its block.
 *
 * @example
 * fragments('abcdef', 4) // ['abcd', 'ef']
 */
export function fragments(text: string, size: number = DEFAULT_CHUNK_SIZE): string[] {
  const step = Math.max(1, Math.floor(size))
  const chars = Array.from(text)
  if (chars.length === 0) return ['']
  const out: string[] = []
  for (let i = 0; i < chars.length; i += step) out.push(chars.slice(i, i + step).join(''))
  return out
}
