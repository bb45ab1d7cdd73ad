import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import type {
  ArmStats,
  FixProposal,
  Outcome,
  Run,
  RunStatus,
  Trial,
  Verification,
} from '../../case/schema/run.ts'
import { parsePatch } from '../../patches/parse-patch.ts'
import { renderPatchDiff } from '../../patches/render-patch-diff.ts'

/**
 * One run forked from the reported run (a `crashlab fix --try`, a `crashlab verify` trial, a `crashlab
 * fork`), as the store lists it: a `StoredRunSummary` fits. `fixId` names the fix it tried when the caller
 * knows it (from the fork's `links.patch`); otherwise the report reads it from the tags.
 *
 * @example
 * const attempts: ReportAttempt[] = store.list().filter((s) => s.forkedFrom === run.id)
 */
export interface ReportAttempt {
  id: string
  status: RunStatus
  outcome: Outcome
  steps: number
  costUsd: number | null
  tags: string[]
  startedAt?: string
  fixId?: string | null
}

/** A fix as both renderers show it: the proposal, its diff against the request it changes, its verification. */
export interface FixView {
  fix: FixProposal
  /** The diff at the model call the fix applies to; `error` when the patch does not parse or there is no call. */
  diff: { step: number; text: string } | { error: string }
  verification: VerificationView | null
}

/** A verification with what a reader looks for first: the regress trials that failed. */
export interface VerificationView extends Verification {
  regressions: Trial[]
  /** Regress trials run, usable or not. */
  regressTrials: number
}

/** A fork of the run, with the fix it tried and the verification arm it was, when known. */
export interface AttemptView {
  id: string
  fixId: string | null
  /** `patched`, `control` or `regress` for a verification trial; `try` for `fix --try`; else `fork`. */
  kind: string
  status: RunStatus
  outcome: Outcome
  steps: number
  costUsd: number | null
  startedAt: string | null
}

/**
 * The fixes of a (redacted) run with their diffs: each applies at the model call at or before the
 * diagnosis's failing step, where `crashlab fix` and `crashlab verify` apply it too.
 */
export function fixViews(run: Run): FixView[] {
  const at = requestAt(run, run.diagnosis?.failingStep ?? null)
  return [...run.fixes]
    .sort((a, b) => a.rank - b.rank)
    .map((fix) => ({ fix, diff: diffOf(fix, at), verification: verificationView(fix.verification) }))
}

function diffOf(fix: FixProposal, at: { step: number; request: NormalizedRequest } | null): FixView['diff'] {
  let patch: ReturnType<typeof parsePatch>
  try {
    patch = parsePatch(fix.patch, fix.id)
  } catch (error) {
    return { error: `the patch does not parse: ${(error as Error).message}` }
  }
  if (!at) return { error: 'the run makes no model call the patch could change' }
  return { step: at.step, text: renderPatchDiff(patch, at.request, { step: at.step }) }
}

function verificationView(v: Verification | undefined): VerificationView | null {
  if (!v) return null
  const regress = v.trials.filter((t) => t.arm === 'regress')
  return { ...v, regressions: regress.filter((t) => t.outcome === 'fail'), regressTrials: regress.length }
}

/**
 * The model call a fix changes: the last one at or before `step`, else the first after it, else the
 * first. The same rule as `crashlab fix` (src/fix), restated here because `report` may not import `fix`.
 */
function requestAt(run: Run, step: number | null): { step: number; request: NormalizedRequest } | null {
  const llm = run.steps.flatMap((s) =>
    s.type === 'llm' && s.request.normalized ? [{ step: s.index, request: s.request.normalized }] : [],
  )
  if (step !== null) {
    const found = llm.filter((r) => r.step <= step).at(-1) ?? llm.find((r) => r.step > step)
    if (found) return found
  }
  return llm[0] ?? null
}

const ARMS = new Set(['patched', 'control', 'regress', 'regress-control'])

/** The forks of the run, oldest first, each with the fix it tried (from `fixId`, else a tag naming a fix). */
export function attemptViews(attempts: readonly ReportAttempt[], run: Run): AttemptView[] {
  const fixIds = new Set(run.fixes.map((f) => f.id))
  return attempts
    .map((a) => ({
      id: a.id,
      fixId: a.fixId ?? a.tags.find((t) => fixIds.has(t)) ?? null,
      kind: a.tags.find((t) => ARMS.has(t)) ?? (a.tags.includes('fix') ? 'try' : 'fork'),
      status: a.status,
      outcome: a.outcome,
      steps: a.steps,
      costUsd: a.costUsd,
      startedAt: a.startedAt ?? null,
    }))
    .sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.id.localeCompare(b.id))
}

/** `90%`, or `n/a` when there is no rate. */
export function percent(rate: number | null): string {
  return rate === null ? 'n/a' : `${Math.round(rate * 100)}%`
}

/** One arm in words: `9/10 passed (90%, 95% CI 60–98%) · pass^3 73% · 1 errored`. */
export function armText(arm: ArmStats, k: number): string {
  const usable = arm.passed + arm.failed
  const rate =
    arm.passRate === null
      ? 'no usable trial'
      : `${percent(arm.passRate)}, 95% CI ${percent(arm.lower)}–${percent(arm.upper)}`
  const hat = arm.passHatK === null ? '' : ` · pass^${k} ${percent(arm.passHatK)}`
  return `${arm.passed}/${usable} passed (${rate})${hat} · ${arm.errored} errored of ${arm.trials}`
}
