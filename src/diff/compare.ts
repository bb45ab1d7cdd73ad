import type { JsonValue } from '../case/schema/json.ts'
import { jsonPath } from '../case/validation-issues.ts'
import type { CompareOptions, CompareResult, Difference, DifferenceKind } from './difference.ts'
import { advance, isIgnored, type PatternNode } from './internal/path-pattern.ts'
import { type ResolvedOptions, resolveOptions } from './internal/resolve-options.ts'

/**
 * One recursive pass over both values, in step: no copy, no canonical serialization, no lookup that
 * grows with the document. Paths are kept as a segment stack and rendered only when a difference is
 * reported, so an equal 5 MB document allocates almost nothing. Object keys are visited in sorted
 * order (missing keys, then unexpected keys, then the shared ones, as the reference does) so that the
 * list of differences does not depend on key order, which never matters; array order always does.
 */

type Json = JsonValue | undefined

interface Walk extends ResolvedOptions {
  path: (string | number)[]
  out: Difference[]
}

/**
 * Compares `expected` (the baseline, `a`) with `actual` (`b`) and lists every difference with its path.
 * Arrays of different lengths report one `length_mismatch` at the array (expected and actual are the
 * lengths) and then compare the common prefix element by element; the extra tail is not listed item
 * by item. Values are JSON values as `JSON.parse` produces them; they are never copied or mutated.
 *
 * @example
 * compare({ amount: 49, note: 'ok\r\n' }, { note: 'ok', amount: 490 }, { mode: 'normalized' })
 * // { equal: false, differences: [{ path: '$.amount', kind: 'value_mismatch', expected: 49, actual: 490 }] }
 */
export function compare(expected: unknown, actual: unknown, options?: CompareOptions): CompareResult {
  const resolved = resolveOptions(options)
  const w: Walk = { ...resolved, path: [], out: [] }
  if (!isIgnored(resolved.ignored)) walk(w, expected as Json, actual as Json, resolved.ignored)
  return { equal: w.out.length === 0, differences: w.out }
}

function walk(w: Walk, a: Json, b: Json, states: readonly PatternNode[]): void {
  // Identical references and equal scalars are equal in every mode.
  if (a === b) return
  const ta = jsonType(a)
  if (ta !== jsonType(b)) report(w, 'type_mismatch', a, b)
  else if (ta === 'object') walkObject(w, a as Record<string, Json>, b as Record<string, Json>, states)
  else if (ta === 'array') walkArray(w, a as Json[], b as Json[], states)
  else if (w.mode !== 'structural') walkScalar(w, ta, a, b)
}

function walkScalar(w: Walk, ta: string, a: Json, b: Json): void {
  if (w.mode === 'normalized') {
    if (ta === 'string' && normalizeText(a as string) === normalizeText(b as string)) return
    if (ta === 'number' && closeEnough(a as number, b as number, w.tolerance)) return
  }
  report(w, 'value_mismatch', a, b)
}

function walkObject(
  w: Walk,
  a: Record<string, Json>,
  b: Record<string, Json>,
  states: readonly PatternNode[],
): void {
  const aKeys = Object.keys(a).sort()
  const bKeys = Object.keys(b).sort()
  for (const k of aKeys) {
    if (!Object.hasOwn(b, k) && !isIgnored(advance(states, k))) reportAt(w, k, 'missing_key', a[k], undefined)
  }
  for (const k of bKeys) {
    if (!Object.hasOwn(a, k) && !isIgnored(advance(states, k)))
      reportAt(w, k, 'unexpected_key', undefined, b[k])
  }
  for (const k of aKeys) {
    if (!Object.hasOwn(b, k)) continue
    const next = advance(states, k)
    if (isIgnored(next)) continue
    w.path.push(k)
    walk(w, a[k], b[k], next)
    w.path.pop()
  }
}

function walkArray(w: Walk, a: Json[], b: Json[], states: readonly PatternNode[]): void {
  if (a.length !== b.length) report(w, 'length_mismatch', a.length, b.length)
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const next = advance(states, i)
    if (isIgnored(next)) continue
    w.path.push(i)
    walk(w, a[i], b[i], next)
    w.path.pop()
  }
}

/** JSON's types: integers and floats are both `number`. */
function jsonType(v: Json): string {
  if (v === null) return 'null'
  return Array.isArray(v) ? 'array' : typeof v
}

/** CRLF and lone CR become LF, then the ends are trimmed: what editors and platforms change. */
function normalizeText(s: string): string {
  return s.replace(/\r\n?/g, '\n').trim()
}

/**
 * The reference's `isclose(a, b, rel_tol=tol, abs_tol=tol)`, for floats only. JSON cannot tell `49`
 * from `49.0`, so "float" means "not both integers": two integers are exact, or a relative tolerance
 * would make large ids such as 1000000000123 and 1000000000124 equal.
 */
function closeEnough(a: number, b: number, tol: number): boolean {
  if (Number.isInteger(a) && Number.isInteger(b)) return false
  return Math.abs(a - b) <= Math.max(tol * Math.max(Math.abs(a), Math.abs(b)), tol)
}

function report(w: Walk, kind: DifferenceKind, expected: Json, actual: Json): void {
  w.out.push(difference(jsonPath(w.path), kind, expected, actual))
}

function reportAt(w: Walk, key: string, kind: DifferenceKind, expected: Json, actual: Json): void {
  w.path.push(key)
  report(w, kind, expected, actual)
  w.path.pop()
}

function difference(path: string, kind: DifferenceKind, expected: Json, actual: Json): Difference {
  const d: Difference = { path, kind }
  if (expected !== undefined) d.expected = expected
  if (actual !== undefined) d.actual = actual
  return d
}
