import type { JsonValue } from '../case/schema/json.ts'

/**
 * The vocabulary of the layered diff, shared by `compare`, `compareAgentCases`, `formatDifferences` and
 * the regression assertion. The names are the AgentCase reference's, so a report reads the same in
 * Python and in TypeScript.
 */

/**
 * How strictly two values are compared.
 * - `exact`: every value must be equal (`===`; `-0` and `0` are the same JSON number).
 * - `structural`: only JSON types, object keys and array lengths; scalar values may differ.
 * - `normalized`: strings equal after CRLF/CR → LF and trimming; non-integer numbers equal within
 *   `floatTolerance`; everything else exact.
 *
 * @example
 * const mode: DiffMode = 'normalized'
 */
export type DiffMode = 'exact' | 'structural' | 'normalized'

/**
 * What kind of difference was found at a path.
 * - `value_mismatch`: same JSON type, different value.
 * - `type_mismatch`: different JSON types (null, boolean, number, string, array, object).
 * - `missing_key`: the key is in the expected value (the baseline, `a`) but not in the actual one (`b`).
 * - `unexpected_key`: the key is in the actual value only.
 * - `length_mismatch`: two arrays of different lengths; `expected`/`actual` are the lengths.
 *
 * @example
 * const kinds: DifferenceKind[] = ['missing_key', 'unexpected_key']
 */
export type DifferenceKind =
  | 'value_mismatch'
  | 'type_mismatch'
  | 'missing_key'
  | 'unexpected_key'
  | 'length_mismatch'

/**
 * One difference. `path` is in the notation of validation errors (`$`, `.key`, `['odd key']`, `[i]`).
 * `expected` is absent on `unexpected_key`, `actual` is absent on `missing_key`.
 *
 * @example
 * const d: Difference = { path: '$.events[3].payload.arguments.amount', kind: 'value_mismatch', expected: 49, actual: 490 }
 */
export interface Difference {
  path: string
  kind: DifferenceKind
  expected?: JsonValue
  actual?: JsonValue
}

/**
 * Options of `compare`.
 *
 * @example
 * compare(a, b, { mode: 'normalized', floatTolerance: 1e-6, ignoredPaths: ['$.events[*].event_id'] })
 */
export interface CompareOptions {
  /** `exact` by default, as in the reference. */
  mode?: DiffMode
  /**
   * Used by `normalized` mode for numbers that are not both integers: equal when
   * `|a − b| ≤ max(tol × max(|a|, |b|), tol)`. Default `1e-9`; negative or NaN is rejected.
   */
  floatTolerance?: number
  /**
   * Path patterns of locations left out of the comparison: `$.created_at`, `$.events[*].event_id`,
   * `$.items[0]['x-id']`, `$.metadata.*`. `[*]` is any array index, `.*` any object key. A pattern names
   * a location, never a bare key: a `timestamp` inside a payload is still data.
   */
  ignoredPaths?: readonly string[]
}

/**
 * What `compare` returns: `equal` is true exactly when `differences` is empty.
 *
 * @example
 * const { equal, differences } = compare(baseline, candidate)
 */
export interface CompareResult {
  equal: boolean
  differences: Difference[]
}
