import { providerFailure } from '../case/provider-failure.ts'
import type { Diagnosis, FailureLabel, Run } from '../case/schema/run.ts'
import type { Finding } from '../case/schema/step.ts'
import { isFailedToolCall } from '../checks/failed-tool-call.ts'
import { findHallucinatedId } from './internal/hallucinated-id.ts'
import { passingRunCause } from './internal/passing-run.ts'
import { chooserOf, isUnbrokenLoop, specViolationCulprit } from './internal/spec-violation.ts'
import { findToolFailure, type ToolFailure } from './internal/tool-failure.ts'
import { wrongToolDiagnosis } from './internal/wrong-tool.ts'
import { stepText } from './step-text.ts'
import { type EvidenceQuote, verifyEvidence } from './verify-evidence.ts'

const RANK = { info: 0, warn: 1, error: 2, critical: 3 } as const

const isProviderFailure = (step: Run['steps'][number] | undefined): boolean => providerFailure(step) !== null

/** Repeated requests each sent after the provider failed the one before: all but the last failed. */
function isRetryLoop(run: Run, steps: readonly number[]): boolean {
  return steps.length > 1 && steps.slice(0, -1).every((i) => isProviderFailure(run.steps[i]))
}

/** EXTERNAL_FAILURE at a failed model call, quoting its status line. */
function externalFailure(
  run: Run,
  index: number,
): Pick<Diagnosis, 'label' | 'failingStep' | 'rootCause' | 'evidence'> {
  const text = stepText(run.steps[index] as Run['steps'][number])
  const line =
    text.split('\n').find((l) => l.startsWith('→ HTTP') || l.startsWith('error ')) ?? text.slice(0, 80)
  return {
    label: 'EXTERNAL_FAILURE',
    failingStep: index,
    rootCause: `The model provider failed at step ${index} (${line.replace(/^→ /, '')}).`,
    evidence: verifyEvidence(run, [{ step: index, quote: line }]),
  }
}

const FAILED_HOW: Record<ToolFailure['how'], string> = {
  threw: 'threw',
  error: 'returned an error',
  page: 'answered an HTML or HTTP error page instead of data',
  agent: 'failed (the agent sent the model an error for it)',
}

/** TOOL_ERROR_MISHANDLED or EXTERNAL_FAILURE at the failed tool step, by what the model did next. */
function toolFailureDiagnosis(
  run: Run,
  failure: ToolFailure,
): Pick<Diagnosis, 'label' | 'failingStep' | 'rootCause' | 'evidence'> {
  const failed = `The tool ${failure.tool} ${FAILED_HOW[failure.how]} at step ${failure.step}`
  const reported = failure.handling === 'reported'
  return {
    label: reported ? 'EXTERNAL_FAILURE' : 'TOOL_ERROR_MISHANDLED',
    failingStep: failure.step,
    rootCause: reported
      ? `${failed}, and the model told the user at step ${failure.reply.step}: the service failed, the agent handled it.`
      : `${failed}, and the model went on at step ${failure.reply.step} as if it had worked.`,
    evidence: verifyEvidence(run, [failure.evidence, failure.reply]),
  }
}

/** Which label a finding kind points to, strongest first. */
const BY_FINDING: ReadonlyArray<[string, FailureLabel]> = [
  ['step_repetition', 'STEP_REPETITION'],
  ['tool_error_streak', 'TOOL_ERROR_MISHANDLED'],
  ['suspicious_tool_result', 'EXTERNAL_FAILURE'],
]

/**
 * A diagnosis with no model: rules over the run's outcome, findings, checks, errors and tool arguments.
 * A run that returned and passed every check is `NO_FAILURE`, whatever it recovered from on the way.
 * Otherwise a bad-arguments finding or a hallucinated id (an id-like argument that appears in no earlier
 * message or tool result), whichever came first, is `BAD_TOOL_ARGUMENTS` at the model call that made it;
 * then a wrong tool (a change nothing asked for where another was asked, a look-up where a change was
 * asked, a change where only a question was asked and a check flags it, a hand-off to the wrong agent,
 * judged from the tools' names and descriptions) is `WRONG_TOOL_SELECTION` at the model call that chose
 * it; then a failed tool call, judged by the model's next answer (`TOOL_ERROR_MISHANDLED` when it claimed
 * success or went on, `EXTERNAL_FAILURE` when it told the user, at the failed tool step either way); then
 * the strongest other finding (repetition, an error streak, a suspicious result; a repetition of model
 * calls the provider failed, a retry loop, is the provider's `EXTERNAL_FAILURE`; a repetition is blamed on
 * its first repeated call), where a failed check outranks a warn-level finding unless it is a loop the run
 * never left and the check names no action; else a provider error (`EXTERNAL_FAILURE` at the first failed
 * call), else a failed check (`TASK_SPEC_VIOLATION` at the model call that chose the action the check
 * names, or at a cut answer that left the task undone, or at the model call that chose the last side-effect
 * call). A run with nothing wrong is `NO_FAILURE`; anything else `UNKNOWN`. Every quote is a verbatim piece
 * of the step it cites.
 *
 * @example
 * heuristicDiagnosis(run).label // 'BAD_TOOL_ARGUMENTS'
 */
export function heuristicDiagnosis(run: Run, now: Date = new Date()): Diagnosis {
  const base = { by: 'heuristic', createdAt: now.toISOString() }
  // The oracles are the judge: what a passing run went through on the way, it recovered from.
  const passed = passingRunCause(run)
  if (passed) return { ...base, label: 'NO_FAILURE', failingStep: null, rootCause: passed, evidence: [] }
  const serious = run.findings.filter((f) => RANK[f.severity] >= RANK.warn)
  const invented = findHallucinatedId(run)
  const badArgs = strongest(serious.filter((f) => f.kind === 'bad_tool_args'))
  // Both are bad arguments; the culprit is the model call that made the first of them.
  if (invented && !(badArgs?.steps[0] !== undefined && badArgs.steps[0] < invented.step)) {
    return {
      ...base,
      label: 'BAD_TOOL_ARGUMENTS',
      failingStep: invented.step,
      rootCause: `The model call at step ${invented.step} called ${invented.tool} with ${invented.key || 'the id'} ${JSON.stringify(invented.value)}, which appears in no earlier message or tool result: a hallucinated id.`,
      evidence: verifyEvidence(run, [{ step: invented.step, quote: invented.quote }]),
    }
  }
  if (badArgs) return { ...base, ...fromFinding(run, badArgs, 'BAD_TOOL_ARGUMENTS') }
  // A wrong tool (docs/diagnose.md): the choice comes before the tool failure or broken check it leads to.
  const wrongTool = wrongToolDiagnosis(run)
  if (wrongTool) return { ...base, ...wrongTool }
  // A failed tool is judged by what the model did next: told the user, or went on as if it worked.
  const toolFailure = findToolFailure(run)
  if (toolFailure) return { ...base, ...toolFailureDiagnosis(run, toolFailure) }
  const failed = run.checks.filter((c) => !c.passed)
  // The decision that broke the rule: the model call that chose the action, or the cut answer.
  const culprit = failed.length > 0 ? specViolationCulprit(run, failed) : null
  // A failed oracle is a verdict, a warn-level finding only a suspicion: the oracle outranks it. But a
  // loop the run never got out of is why the task was left undone, unless the check names an action.
  const loops = culprit?.how !== 'named'
  const ranked =
    failed.length > 0
      ? serious.filter((f) => RANK[f.severity] >= RANK.error || (loops && isUnbrokenLoop(run, f)))
      : serious
  for (const [kind, label] of BY_FINDING) {
    const finding = strongest(ranked.filter((f) => f.kind === kind))
    if (!finding) continue
    // The same request sent again because the provider kept failing it (the last one may have got
    // through): the failure is the provider's, the repetition only its echo, a retry loop.
    if (kind === 'step_repetition' && isRetryLoop(run, finding.steps)) {
      const external = externalFailure(run, finding.steps[0] as number)
      return {
        ...base,
        ...external,
        rootCause: `${external.rootCause.slice(0, -1)}, and the same request was sent again ${finding.steps.length - 1} time${finding.steps.length === 2 ? '' : 's'}.`,
      }
    }
    if (kind === 'step_repetition') return { ...base, ...repetition(run, finding) }
    return { ...base, ...fromFinding(run, finding, label) }
  }
  const external = run.steps.find(isProviderFailure)
  if (external) return { ...base, ...externalFailure(run, external.index) }
  if (failed.length > 0) {
    const first = failed[0]
    const check = sentence(`The check ${first?.name} failed${first?.message ? `: ${first.message}` : ''}`)
    return {
      ...base,
      label: 'TASK_SPEC_VIOLATION',
      failingStep: culprit?.step ?? null,
      rootCause: culprit ? `${check.slice(0, -1)}; ${culprit.what}.` : check,
      evidence: culprit ? verifyEvidence(run, [{ step: culprit.step, quote: culprit.quote }]) : [],
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
  // A tool that returned an error failed as much as one that threw (the checks' definition).
  const errored = run.steps.find((s) => (s.type === 'tool' ? isFailedToolCall(s) : s.error))
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

/**
 * STEP_REPETITION at the first repeated call: the second occurrence, the first that repeats an earlier
 * one (for a repeated tool call the agent's code made, the tool step; the detector lists a model's call
 * at the model call that chose it). Its quotes are looked for at that step first.
 */
function repetition(
  run: Run,
  finding: Finding,
): Pick<Diagnosis, 'label' | 'failingStep' | 'rootCause' | 'evidence'> {
  const repeat = finding.steps[1]
  if (repeat === undefined) return fromFinding(run, finding, 'STEP_REPETITION')
  const step = run.steps[repeat]?.type === 'tool' ? (chooserOf(run, repeat)?.step ?? repeat) : repeat
  const first = { ...finding, steps: [step, ...finding.steps.filter((s) => s !== step)] }
  return { ...fromFinding(run, first, 'STEP_REPETITION'), failingStep: step }
}

/** A diagnosis at a finding's first step, quoting its evidence. */
function fromFinding(
  run: Run,
  finding: Finding,
  label: FailureLabel,
): Pick<Diagnosis, 'label' | 'failingStep' | 'rootCause' | 'evidence'> {
  const evidence = verifyEvidence(run, quotesOf(run, finding))
  return { label, failingStep: finding.steps[0] ?? null, rootCause: sentence(finding.message), evidence }
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
