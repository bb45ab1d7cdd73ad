import type { Run, UsageTotals } from '../case/schema/run.ts'
import type { Severity } from '../case/schema/step.ts'
import type { Difference } from './difference.ts'
import { type AlignedStep, type AlignmentStatus, alignSteps } from './internal/run-align.ts'
import { requestDifferences, responseDifferences } from './internal/run-steps.ts'

export type { AlignedStep, AlignmentStatus } from './internal/run-align.ts'

/**
 * How two runs relate, from their links: `fork` (one was forked from the other), `replay` (one replays
 * the other), `same` (one run compared with itself), `unrelated` (anything else, e.g. two recordings).
 *
 * @example
 * const relation: RunRelation = 'fork'
 */
export type RunRelation = 'fork' | 'replay' | 'same' | 'unrelated'

/**
 * One value for each run, `a` first.
 *
 * @example
 * const steps: Side<number> = { a: 5, b: 7 }
 */
export interface Side<T> {
  a: T
  b: T
}

/**
 * One oracle's verdict in each run; absent on the side where the check did not run.
 *
 * @example
 * const c: CheckChange = { name: 'refundNeverExceedsTotal', a: true, b: false, changed: true }
 */
export interface CheckChange {
  name: string
  a?: boolean
  b?: boolean
  changed: boolean
}

/**
 * The first aligned row that is not `same`, with the field diff of the two steps: the requests for
 * `different_request`, the responses for `different_response`, nothing for a step only in one run.
 * `expected` is run A's value, `actual` run B's.
 *
 * @example
 * d.firstDivergence // { a: 3, b: 3, status: 'different_request', differences: [{ path: '$.system[0].text', … }] }
 */
export interface FirstDivergence {
  a?: number
  b?: number
  status: Exclude<AlignmentStatus, 'same'>
  differences: Difference[]
}

/**
 * What `diffRuns` returns; plain data, so `JSON.stringify` gives the `--json` output.
 *
 * @example
 * const d: RunDiff = diffRuns(parent, fork)
 * if (d.outcome.changed) console.log(`${d.outcome.a} → ${d.outcome.b}`)
 */
export interface RunDiff {
  ids: Side<string>
  names: Side<string>
  relation: RunRelation
  /** Which run the other one derives from, for `fork` and `replay`. */
  parent?: 'a' | 'b'
  /** The step a fork started from, from the fork's links. */
  forkStep?: number
  status: Side<Run['status']> & { changed: boolean }
  outcome: Side<Run['outcome']> & { changed: boolean }
  /** Every check of either run, sorted by name. */
  checks: CheckChange[]
  /** Findings by severity. */
  findings: Side<Record<Severity, number>>
  usage: Side<UsageTotals>
  steps: Side<number>
  /** From `startedAt` to `endedAt`; null for a run that never ended. */
  durationMs: Side<number | null>
  /** USD; null when the price is unknown. */
  cost: Side<number | null>
  alignment: AlignedStep[]
  firstDivergence?: FirstDivergence
}

/**
 * Compares two runs: how they relate, outcome and check changes, usage, steps, time and cost side by
 * side, a step-by-step alignment (same, different request, different response, only in A, only in B)
 * and the first divergence with a field diff in normalized mode. `a` is the baseline (usually the
 * parent), `b` the candidate. See docs/diff.md.
 *
 * @example
 * const d = diffRuns(store.load(fork.links.forkedFrom!), fork)
 * d.firstDivergence?.differences[0]?.path // '$.system[0].text'
 * console.log(formatRunDiff(d))
 */
export function diffRuns(a: Run, b: Run): RunDiff {
  const alignment = alignSteps(a.steps, b.steps)
  const d: RunDiff = {
    ids: { a: a.id, b: b.id },
    names: { a: a.name, b: b.name },
    relation: 'unrelated',
    status: { a: a.status, b: b.status, changed: a.status !== b.status },
    outcome: { a: a.outcome, b: b.outcome, changed: a.outcome !== b.outcome },
    checks: checkChanges(a, b),
    findings: { a: severities(a), b: severities(b) },
    usage: { a: { ...a.usage }, b: { ...b.usage } },
    steps: { a: a.steps.length, b: b.steps.length },
    durationMs: { a: duration(a), b: duration(b) },
    cost: { a: a.cost?.usd ?? null, b: b.cost?.usd ?? null },
    alignment,
  }
  Object.assign(d, relation(a, b))
  const first = alignment.find((r) => r.status !== 'same')
  if (first) d.firstDivergence = divergence(a, b, first)
  return d
}

function relation(a: Run, b: Run): Pick<RunDiff, 'relation' | 'parent' | 'forkStep'> {
  if (a.id === b.id) return { relation: 'same' }
  for (const [parent, child, side] of [[a, b, 'a'] as const, [b, a, 'b'] as const]) {
    if (child.links.forkedFrom === parent.id) {
      const step = child.links.forkStep
      return { relation: 'fork', parent: side, ...(step === undefined ? {} : { forkStep: step }) }
    }
  }
  if (b.links.replayOf === a.id) return { relation: 'replay', parent: 'a' }
  if (a.links.replayOf === b.id) return { relation: 'replay', parent: 'b' }
  return { relation: 'unrelated' }
}

function checkChanges(a: Run, b: Run): CheckChange[] {
  const byName = new Map<string, CheckChange>()
  const entry = (name: string) => byName.get(name) ?? byName.set(name, { name, changed: false }).get(name)!
  for (const c of a.checks) entry(c.name).a = c.passed
  for (const c of b.checks) entry(c.name).b = c.passed
  const out = [...byName.values()].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
  for (const c of out) c.changed = c.a !== c.b
  return out
}

function severities(run: Run): Record<Severity, number> {
  const out: Record<Severity, number> = { info: 0, warn: 0, error: 0, critical: 0 }
  for (const f of run.findings) out[f.severity]++
  return out
}

function duration(run: Run): number | null {
  if (!run.endedAt) return null
  const ms = Date.parse(run.endedAt) - Date.parse(run.startedAt)
  return Number.isFinite(ms) ? ms : null
}

function divergence(a: Run, b: Run, row: AlignedStep): FirstDivergence {
  const status = row.status as FirstDivergence['status']
  const out: FirstDivergence = { status, differences: [] }
  if (row.a !== undefined) out.a = row.a
  if (row.b !== undefined) out.b = row.b
  const sa = row.a === undefined ? undefined : a.steps[row.a]
  const sb = row.b === undefined ? undefined : b.steps[row.b]
  if (sa && sb) {
    out.differences =
      status === 'different_request' ? requestDifferences(sa, sb) : responseDifferences(sa, sb)
  }
  return out
}
