import type { Step } from '../../case/schema/step.ts'
import { looseKey, outcomeKey, responseDifferences, stepLabel, stepSignature } from './run-steps.ts'

/**
 * Lines two step lists up, the way a text diff lines up two files. First the same calls with the same
 * results are matched as anchors; between two anchors, the same calls are paired (a changed response),
 * then steps of the same kind (the same tool, the same model endpoint; a changed request); what is
 * left is only in one run.
 *
 * Matching is a longest common subsequence after the shared head and tail are cut off (a fork or a
 * replay shares most of both), so the table only covers the part that changed. When that part is
 * still too big for a table (more than ~4,000 × 4,000 steps), a greedy walk with a bounded look-ahead
 * takes over: it can miss a better alignment, never the same steps at the same places.
 */

/**
 * How one aligned row compares: the same call with the same result, the same call with another result,
 * the same kind of call with another request, or a step that only one run has.
 *
 * @example
 * const status: AlignmentStatus = 'different_response'
 */
export type AlignmentStatus = 'same' | 'different_request' | 'different_response' | 'only_a' | 'only_b'

/**
 * One row of the alignment: the step index in each run that has the step.
 *
 * @example
 * const row: AlignedStep = { a: 3, b: 3, status: 'different_request', detail: 'tool issue_refund' }
 */
export interface AlignedStep {
  a?: number
  b?: number
  status: AlignmentStatus
  /** What the step is, e.g. `tool issue_refund`; `x → y` when the two sides are named differently. */
  detail?: string
}

/** The largest dynamic-programming table (cells); beyond it the greedy walk runs. */
const MAX_CELLS = 16_000_000
/** How far the greedy walk looks ahead for the next common step. */
const LOOK_AHEAD = 64

/**
 * The step-by-step alignment of two runs, in the order of both runs.
 *
 * @example
 * alignSteps(a.steps, b.steps) // [{ a: 0, b: 0, status: 'same', detail: 'llm gpt-4o-mini' }, …]
 */
export function alignSteps(a: readonly Step[], b: readonly Step[]): AlignedStep[] {
  const out: AlignedStep[] = []
  alignLevel(a, b, 0, a.length, 0, b.length, 0, out)
  return out
}

/**
 * What pairs two steps, strictest first: the same call with the same result, the same call, the same
 * kind of call. Trying the strict key first keeps a retried call beside the attempt that worked: in
 * 502, 502, 200 against 200, the 200s pair up and the failed attempts are only in B.
 */
const LEVELS = [outcomeKey, stepSignature, looseKey] as const

/** Aligns a[i0..i1) with b[j0..j1), where no step pairs at a stricter level than `level`. */
function alignLevel(
  a: readonly Step[],
  b: readonly Step[],
  i0: number,
  i1: number,
  j0: number,
  j1: number,
  level: number,
  out: AlignedStep[],
): void {
  const key = LEVELS[level]
  if (!key) {
    for (let i = i0; i < i1; i++) out.push({ a: i, status: 'only_a', detail: stepLabel(a[i]!) })
    for (let j = j0; j < j1; j++) out.push({ b: j, status: 'only_b', detail: stepLabel(b[j]!) })
    return
  }
  const pairs = matchSequences(a.slice(i0, i1).map(key), b.slice(j0, j1).map(key))
  let i = i0
  let j = j0
  for (const [pi, pj] of [...pairs, [i1 - i0, j1 - j0] as const]) {
    alignLevel(a, b, i, i0 + pi, j, j0 + pj, level + 1, out)
    i = i0 + pi
    j = j0 + pj
    if (i < i1 && j < j1) out.push(row(i, j, level, a[i]!, b[j]!))
    i++
    j++
  }
}

function row(ai: number, bj: number, level: number, sa: Step, sb: Step): AlignedStep {
  let status: AlignmentStatus = level === 0 ? 'same' : 'different_request'
  // Same call, and the result differs only in what normalized mode forgives (line ends, float noise).
  if (level === 1) status = responseDifferences(sa, sb).length === 0 ? 'same' : 'different_response'
  const la = stepLabel(sa)
  const lb = stepLabel(sb)
  return { a: ai, b: bj, status, detail: la === lb ? la : `${la} → ${lb}` }
}

/**
 * Index pairs of a common subsequence of `x` and `y`, increasing in both: the longest one when the
 * changed middle fits the table, a greedy one otherwise.
 *
 * @example
 * matchSequences(['a', 'b', 'c'], ['a', 'c']) // [[0, 0], [2, 1]]
 */
export function matchSequences(x: readonly string[], y: readonly string[]): Array<[number, number]> {
  const ids = new Map<string, number>()
  const intern = (s: string): number => {
    let id = ids.get(s)
    if (id === undefined) {
      id = ids.size
      ids.set(s, id)
    }
    return id
  }
  const xs = Int32Array.from(x, intern)
  const ys = Int32Array.from(y, intern)
  const n = xs.length
  const m = ys.length
  let head = 0
  while (head < n && head < m && xs[head] === ys[head]) head++
  let tail = 0
  while (tail < n - head && tail < m - head && xs[n - 1 - tail] === ys[m - 1 - tail]) tail++
  const out: Array<[number, number]> = []
  for (let k = 0; k < head; k++) out.push([k, k])
  const mx = xs.subarray(head, n - tail)
  const my = ys.subarray(head, m - tail)
  const middle = mx.length * my.length <= MAX_CELLS ? lcs(mx, my) : greedy(mx, my)
  for (const [p, q] of middle) out.push([p + head, q + head])
  for (let k = tail; k > 0; k--) out.push([n - k, m - k])
  return out
}

function lcs(x: Int32Array, y: Int32Array): Array<[number, number]> {
  const n = x.length
  const m = y.length
  if (n === 0 || m === 0) return []
  // len[i * w + j] = length of the LCS of x[i..] and y[j..]; the middle never exceeds 4,000 on the
  // short side (see MAX_CELLS), so 16 bits hold it.
  const w = m + 1
  const len = new Uint16Array((n + 1) * w)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i * w + j] =
        x[i] === y[j] ? len[(i + 1) * w + j + 1]! + 1 : Math.max(len[(i + 1) * w + j]!, len[i * w + j + 1]!)
    }
  }
  const out: Array<[number, number]> = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (x[i] === y[j]) out.push([i++, j++])
    else if (len[(i + 1) * w + j]! >= len[i * w + j + 1]!) i++
    else j++
  }
  return out
}

function greedy(x: Int32Array, y: Int32Array): Array<[number, number]> {
  const out: Array<[number, number]> = []
  let i = 0
  let j = 0
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      out.push([i++, j++])
      continue
    }
    let skipped = false
    for (let d = 1; d <= LOOK_AHEAD && !skipped; d++) {
      if (i + d < x.length && x[i + d] === y[j]) {
        i += d
        skipped = true
      } else if (j + d < y.length && x[i] === y[j + d]) {
        j += d
        skipped = true
      }
    }
    if (!skipped) {
      i++
      j++
    }
  }
  return out
}
