import type { JsonValue } from '../case/schema/json.ts'
import { changeWindows } from '../case/show-change.ts'
import type { Difference } from './difference.ts'

/**
 * A report is read in a terminal or a CI log, next to the failing test: one line per difference with
 * the path first (what the reader searches for in the baseline), values abbreviated so that a changed
 * 5 kB model answer does not bury the rest, and the kind last for those who branch on it.
 */

/**
 * Options of `formatDifferences`.
 *
 * @example
 * formatDifferences(differences, { limit: 5, maxValueLength: 40 })
 */
export interface FormatDifferencesOptions {
  /** At most this many lines, then `  … and N more`. Default 20. */
  limit?: number
  /** Values longer than this (as JSON) are cut with `…`. Default 80. */
  maxValueLength?: number
}

/**
 * Renders differences one per line, indented by two spaces:
 * `  $.events[3].payload.arguments.amount: expected 49, got 490 (value_mismatch)`.
 * Missing and unexpected keys show the one value they have; a length mismatch shows both lengths.
 *
 * @example
 * formatDifferences(compare({ a: 1 }, { a: 2 }).differences)
 * // '  $.a: expected 1, got 2 (value_mismatch)'
 */
export function formatDifferences(
  differences: readonly Difference[],
  options: FormatDifferencesOptions = {},
): string {
  const limit = Math.max(0, options.limit ?? 20)
  const max = options.maxValueLength ?? 80
  const lines = differences.slice(0, limit).map((d) => `  ${d.path}: ${describe(d, max)} (${d.kind})`)
  if (differences.length > limit) lines.push(`  … and ${differences.length - limit} more`)
  return lines.join('\n')
}

function describe(d: Difference, max: number): string {
  switch (d.kind) {
    case 'missing_key':
      return `missing, expected ${abbreviate(d.expected, max)}`
    case 'unexpected_key':
      return `unexpected, got ${abbreviate(d.actual, max)}`
    case 'length_mismatch':
      return `expected length ${d.expected}, got length ${d.actual}`
    default:
      return changed(d.expected, d.actual, max)
  }
}

/**
 * Two values that fit are shown whole; longer ones as windows around the first place they part, with
 * its offset, since a shared start (a prompt, a long answer) would show the same text on both sides.
 */
function changed(expected: JsonValue | undefined, actual: JsonValue | undefined, max: number): string {
  const short = (v: JsonValue | undefined) => abbreviate(v, Number.POSITIVE_INFINITY).length <= max
  if (expected === undefined || actual === undefined || (short(expected) && short(actual)))
    return `expected ${abbreviate(expected, max)}, got ${abbreviate(actual, max)}`
  const w = changeWindows(expected, actual)
  return `at ${w.where} ${w.at} of ${w.lengths[0]} → ${w.lengths[1]}: expected ${w.left}, got ${w.right}`
}

/**
 * The JSON text of a value, cut at `max` characters. The start is kept because it is what people
 * recognise (a message's first words, an object's first keys).
 *
 * @example
 * abbreviate('x'.repeat(200), 10) // '"xxxxxxxx…'
 */
export function abbreviate(value: JsonValue | undefined, max = 80): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value))
  return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`
}
