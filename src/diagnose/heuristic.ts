import type { Diagnosis, FailureLabel, Run } from '../case/schema/run.ts'
import type { Finding } from '../case/schema/step.ts'
import { stepText } from './step-text.ts'
import { type EvidenceQuote, verifyEvidence } from './verify-evidence.ts'

const RANK = { info: 0, warn: 1, error: 2, critical: 3 } as const

/** Which label a finding kind points to, strongest first. */
const BY_FINDING: ReadonlyArray<[string, FailureLabel]> = [
  ['bad_tool_args', 'BAD_TOOL_ARGUMENTS'],
  ['step_repetition', 'STEP_REPETITION'],
  ['tool_error_streak', 'TOOL_ERROR_MISHANDLED'],
  ['suspicious_tool_result', 'EXTERNAL_FAILURE'],
]

/**
 * A diagnosis with no model: rules over the run's findings, checks and errors. The failing step and the
 * evidence come from the strongest finding (bad tool arguments, repetition, an error streak, a
 * suspicious result), else from a provider error (`EXTERNAL_FAILURE`), else from a failed check (the
 * last side-effect tool call, or the last tool call: `TASK_SPEC_VIOLATION`). A run with nothing wrong is
 * `NO_FAILURE`; anything else `UNKNOWN`. Every quote is a verbatim piece of the step it cites.
 *
 * @example
 * heuristicDiagnosis(run).label // 'BAD_TOOL_ARGUMENTS'
 */
export function heuristicDiagnosis(run: Run, now: Date = new Date()): Diagnosis {
  const base = { by: 'heuristic', createdAt: now.toISOString() }
  const serious = run.findings.filter((f) => RANK[f.severity] >= RANK.warn)
  for (const [kind, label] of BY_FINDING) {
    const finding = strongest(serious.filter((f) => f.kind === kind))
    if (!finding) continue
    const step = finding.steps[0] ?? null
    const evidence = verifyEvidence(run, quotesOf(run, finding))
    return { ...base, label, failingStep: step, rootCause: sentence(finding.message), evidence }
  }
  const external = run.steps.find(
    (s) => s.type === 'llm' && ((s.response && s.response.wire.status >= 429) || (s.error && !s.response)),
  )
  if (external) {
    const text = stepText(external)
    const line =
      text.split('\n').find((l) => l.startsWith('→ HTTP') || l.startsWith('error ')) ?? text.slice(0, 80)
    return {
      ...base,
      label: 'EXTERNAL_FAILURE',
      failingStep: external.index,
      rootCause: `The model provider failed at step ${external.index} (${line.replace(/^→ /, '')}).`,
      evidence: verifyEvidence(run, [{ step: external.index, quote: line }]),
    }
  }
  const failed = run.checks.filter((c) => !c.passed)
  if (failed.length > 0) {
    const tools = run.steps.filter((s) => s.type === 'tool')
    const culprit = [...tools].reverse().find((s) => s.type === 'tool' && s.sideEffects) ?? tools.at(-1)
    const first = failed[0]
    const quote = culprit?.type === 'tool' ? JSON.stringify(culprit.args) : undefined
    return {
      ...base,
      label: 'TASK_SPEC_VIOLATION',
      failingStep: culprit?.index ?? null,
      rootCause: sentence(`The check ${first?.name} failed${first?.message ? `: ${first.message}` : ''}`),
      evidence: culprit && quote ? verifyEvidence(run, [{ step: culprit.index, quote }]) : [],
    }
  }
  if (run.status === 'ok' && serious.length === 0) {
    return {
      ...base,
      label: 'NO_FAILURE',
      failingStep: null,
      rootCause: 'Nothing failed: every check passed and no finding is at warn or above.',
      evidence: [],
    }
  }
  const errored = run.steps.find((s) => s.error)
  return {
    ...base,
    label: 'UNKNOWN',
    failingStep: errored?.index ?? null,
    rootCause: run.error
      ? sentence(`The run ended with ${run.error.name}: ${run.error.message}`)
      : 'No rule explains this run.',
    evidence: [],
  }
}

function strongest(findings: readonly Finding[]): Finding | undefined {
  return [...findings].sort((a, b) => RANK[b.severity] - RANK[a.severity])[0]
}

function quotesOf(run: Run, finding: Finding): EvidenceQuote[] {
  const out: EvidenceQuote[] = []
  for (const quote of finding.evidence) {
    const step = finding.steps.find((s) => run.steps[s] && stepText(run.steps[s]).includes(quote))
    if (step !== undefined) out.push({ step, quote })
  }
  return out
}

/** One sentence: the first line, ending with a full stop. */
function sentence(text: string): string {
  const line = (text.split('\n')[0] ?? '').trim()
  return /[.!?]$/.test(line) ? line : `${line}.`
}
