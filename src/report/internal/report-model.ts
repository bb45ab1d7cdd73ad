import type { Run } from '../../case/schema/run.ts'
import { formatUsd } from '../../cost/format-usd.ts'
import { unpricedSteps } from '../../cost/price-run.ts'
import { type Redactor, redactDocument } from '../../redact/index.ts'
import { type FailingStep, failingStepOf } from '../failing-step.ts'
import { type AttemptView, attemptViews, type FixView, fixViews, type ReportAttempt } from './fix-views.ts'
import { type StepView, viewStep } from './step-view.ts'
import { escapeControls } from './text-fold.ts'

/** A command the reader can run next, and why. */
export interface NextCommand {
  command: string
  why: string
}

/** Everything both renderers show, computed once from the redacted run. */
export interface ReportModel {
  /** The run after redaction: the only run a renderer may read. */
  run: Run
  ref: string
  /** How many values this redaction pass replaced (the run may carry earlier records too). */
  redactedNow: number
  partial: boolean
  failing: FailingStep | null
  steps: StepView[]
  /** Step index → the indexes (in `run.findings`) of the findings that name it. */
  findingsByStep: Map<number, number[]>
  failedChecks: number
  costText: string
  /** The run's fixes, best first, with their diffs and verifications. */
  fixes: FixView[]
  /** The runs forked from this one that the caller passed (`attempts`), oldest first. */
  attempts: AttemptView[]
  next: NextCommand[]
}

/**
 * Redacts the run (a report is written to disk, and every writer redacts first), then derives what the
 * renderers need. Nothing below reads the caller's run. For a terminal (`terminal`), control characters in
 * the run's strings are shown as escapes.
 */
export function buildReportModel(
  original: Run,
  options: { runRef?: string; redactor?: Redactor; terminal?: boolean; attempts?: readonly ReportAttempt[] },
): ReportModel {
  const redacted = redactDocument(original, { redactor: options.redactor })
  const run = options.terminal ? escapeControls(redacted.value) : redacted.value
  // Attempts are the caller's data, written into the same file: redacted (and escaped) like the run.
  const forks = redactDocument([...(options.attempts ?? [])], { redactor: options.redactor })
  const attempts = options.terminal ? escapeControls(forks.value) : forks.value
  const ref = options.runRef ?? run.id
  const failing = failingStepOf(run)
  const findingsByStep = new Map<number, number[]>()
  run.findings.forEach((f, i) => {
    for (const s of new Set(f.steps)) findingsByStep.set(s, [...(findingsByStep.get(s) ?? []), i])
  })
  return {
    run,
    ref,
    redactedNow: redacted.records.length + forks.records.length,
    partial: redacted.partial || forks.partial,
    failing,
    steps: run.steps.map(viewStep),
    findingsByStep,
    failedChecks: run.checks.filter((c) => !c.passed).length,
    costText: costText(run),
    fixes: fixViews(run),
    attempts: attemptViews(attempts, run),
    next: nextCommands(run, ref, failing),
  }
}

function costText(run: Run): string {
  if (!run.cost) return 'unknown'
  const missing = unpricedSteps(run)
  const source = run.cost.catalog
    ? ` (${run.cost.catalog}${run.cost.catalogVersion ? ` ${run.cost.catalogVersion}` : ''})`
    : ''
  const bound = missing.length
    ? `, at least: step${missing.length > 1 ? 's' : ''} ${missing.join(', ')} unpriced`
    : ''
  return `${formatUsd(run.cost.usd)}${source}${bound}`
}

/** A value that may need quoting in a shell: run refs are ULIDs or `last`, but a caller may pass a path. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`
}

/**
 * The commands worth running next, each one that works on this run as it is: what starts the agent
 * again (replay, fork, verify) only for a run with an entry point; a run without one gets the fork's
 * dry run, which shows the model request a patch would change.
 */
function nextCommands(run: Run, ref: string, failing: FailingStep | null): NextCommand[] {
  const id = shellWord(ref)
  const startable = run.entryPoint !== null
  const next: NextCommand[] = [{ command: `npx crashlab show ${id}`, why: 'every step, in full' }]
  if (startable) {
    next.push({ command: `npx crashlab replay ${id}`, why: 'run it again offline, from the recording' })
  }
  const wentWrong = run.outcome === 'fail' || run.status === 'error' || failing !== null
  if (wentWrong && !run.diagnosis) {
    next.push({ command: `npx crashlab diagnose ${id}`, why: 'name the failing step and the root cause' })
  }
  if (run.diagnosis && run.diagnosis.label !== 'NO_FAILURE' && run.fixes.length === 0) {
    next.push({ command: `npx crashlab fix ${id}`, why: 'propose patches for the diagnosed failure' })
  }
  const unverified = [...run.fixes].sort((a, b) => a.rank - b.rank).find((f) => !f.verification)
  if (unverified && startable) {
    next.push({
      command: `npx crashlab verify ${id} --fix ${shellWord(unverified.id)} -k 5`,
      why: 'patched forks against controls: is the fix real?',
    })
  }
  const verified = run.fixes.find((f) => f.verification?.verdict === 'VERIFIED')
  // export-test runs the agent again through a module: the run's own, or the one an agentCase run recorded.
  const origin = run.metadata.agentOrigin
  const rerunnable = run.entryPoint?.kind === 'module' || (typeof origin === 'object' && origin !== null)
  if (verified && rerunnable) {
    next.push({
      command: `npx crashlab export-test ${id} --fix ${shellWord(verified.id)} -o test/regressions`,
      why: 'write the failure and the verified fix out as a regression test',
    })
  }
  const at = failing?.index ?? run.diagnosis?.failingStep ?? null
  if (at !== null && startable) {
    next.push({ command: `npx crashlab fork ${id} --at ${at}`, why: `re-run from step ${at} with a patch` })
  } else if (at !== null) {
    next.push({
      command: `npx crashlab fork ${id} --at ${at} --dry-run`,
      why: `the model request a patch from step ${at} would change`,
    })
  }
  return next
}
