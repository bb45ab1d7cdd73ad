import type { JsonValue } from './schema/json.ts'

/**
 * Two long values side by side, as people need to see them in a failure message: a window around the
 * first character where they part, with its offset, instead of the shared start (which hides a change
 * at the end of a long prompt or deep inside a JSON body). Used by divergence messages and by the
 * layered diff's formatted differences.
 */

/** Values up to this long (as JSON) are shown whole. */
export const WHOLE = 80
/** Characters of a window shown before the first difference, and from it on. */
const BEFORE = 24
const AFTER = 40

/**
 * `recorded → actual`, each shown whole when both are short, else as windows around the first
 * difference: `at character 1234 of 1300 → 1302: "…the tail of A…" → "…the tail of B…"`. Strings are
 * compared as text (the offset is into the string, counted from 0 like `String.prototype.slice`); other
 * values, or a string against a non-string, as their JSON text (`at JSON character N`).
 *
 * @example
 * showChange('x'.repeat(500) + 'A', 'x'.repeat(500) + 'B')
 * // 'at character 500 of 501 → 501: "…xxxxxxxxxxxxxxxxxxxxxxxxA" → "…xxxxxxxxxxxxxxxxxxxxxxxxB"'
 */
export function showChange(recorded: JsonValue, actual: JsonValue): string {
  const a = JSON.stringify(recorded) ?? 'undefined'
  const b = JSON.stringify(actual) ?? 'undefined'
  if (a.length <= WHOLE && b.length <= WHOLE) return `${a} → ${b}`
  const w = changeWindows(recorded, actual)
  return `at ${w.where} ${w.at} of ${w.lengths[0]} → ${w.lengths[1]}: ${w.left} → ${w.right}`
}

/**
 * Where two values part and a window of each around that place: `where` says whether the offset is
 * into the strings themselves (`character`) or into the values' JSON text (`JSON character`).
 *
 * @example
 * changeWindows('x'.repeat(500) + 'A', 'x'.repeat(500) + 'B').at // 500
 */
export function changeWindows(
  recorded: JsonValue,
  actual: JsonValue,
): { where: string; at: number; lengths: [number, number]; left: string; right: string } {
  const strings = typeof recorded === 'string' && typeof actual === 'string'
  const left = strings ? (recorded as string) : (JSON.stringify(recorded) ?? 'undefined')
  const right = strings ? (actual as string) : (JSON.stringify(actual) ?? 'undefined')
  const at = firstDifference(left, right)
  return {
    where: strings ? 'character' : 'JSON character',
    at,
    lengths: [left.length, right.length],
    left: windowOf(left, at, strings),
    right: windowOf(right, at, strings),
  }
}

/** Where two texts first differ (the shorter one's length when it is a prefix of the other), never inside a surrogate pair. */
function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i > 0 && isLowSurrogate(a, i) && isHighSurrogate(a, i - 1) ? i - 1 : i
}

/** `text` from a little before `at` to a while after, `…` where it is cut; a string is shown quoted, as JSON. */
function windowOf(text: string, at: number, quote: boolean): string {
  let start = Math.max(0, at - BEFORE)
  let end = Math.min(text.length, at + AFTER)
  if (isLowSurrogate(text, start) && start > 0) start--
  if (end < text.length && isHighSurrogate(text, end - 1)) end++
  const part = text.slice(start, end)
  const body = quote ? (JSON.stringify(part) as string).slice(1, -1) : part
  const shown = `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`
  return quote ? `"${shown}"` : shown
}

function isHighSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  return c >= 0xd800 && c <= 0xdbff
}

function isLowSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  return c >= 0xdc00 && c <= 0xdfff
}
