import { isMcpToolStep, mcpResultValue } from '../case/mcp-steps.ts'
import type { Run } from '../case/schema/run.ts'
import type { Step } from '../case/schema/step.ts'

/**
 * The step a report marks as where the run went wrong, and why it was chosen.
 *
 * @example
 * const failing: FailingStep = { index: 3, reasons: ['the tool threw: TypeError: amount is not a number'] }
 */
export interface FailingStep {
  /** The step's index in `run.steps`. */
  index: number
  /** One line per piece of evidence that points at this step, strongest first. */
  reasons: string[]
}

/**
 * Picks the step a report marks as failing, from what the run itself says (no model is asked):
 *
 * 1. the diagnosis's `failingStep`, when a diagnosis named one: it weighed everything below;
 * 2. otherwise the earliest step that either ended in an error (an MCP tool's `isError` result
 *    included) or is named by an `error` or `critical` finding. The earliest, because what follows a failure (retries, apologies, a repetition) is usually
 *    its consequence.
 *
 * Checks (oracle results) name no step, so a run that only failed an oracle has no failing step unless it
 * was diagnosed: `null`, and the report shows the failed check instead. Every other piece of evidence
 * about the chosen step is gathered in `reasons`.
 *
 * @example
 * const failing = failingStepOf(run)
 * if (failing) console.log(`step ${failing.index}: ${failing.reasons.join('; ')}`)
 */
export function failingStepOf(run: Run): FailingStep | null {
  const inRange = (i: number | null | undefined): i is number =>
    typeof i === 'number' && i >= 0 && i < run.steps.length
  const diagnosed = run.diagnosis?.failingStep
  let index: number | null = inRange(diagnosed) ? diagnosed : null

  if (index === null) {
    const candidates: number[] = []
    // An MCP tool that answered `isError` failed as a wrapped tool that threw did: the call went through.
    for (const step of run.steps) if (step.error || mcpToolError(step)) candidates.push(step.index)
    for (const finding of run.findings) {
      if (finding.severity === 'error' || finding.severity === 'critical') {
        candidates.push(...finding.steps.filter(inRange))
      }
    }
    if (candidates.length === 0) return null
    index = Math.min(...candidates)
  }
  return { index, reasons: reasonsFor(run, index) }
}

function reasonsFor(run: Run, index: number): string[] {
  const reasons: string[] = []
  const { diagnosis } = run
  if (diagnosis && diagnosis.failingStep === index) {
    reasons.push(`diagnosis ${diagnosis.label}: ${diagnosis.rootCause}`)
  }
  const step = run.steps[index]
  if (step?.error) {
    const what =
      step.type === 'tool' ? 'the tool threw' : step.type === 'llm' ? 'the call failed' : 'the request failed'
    const status = step.error.status === undefined ? '' : ` (HTTP ${step.error.status})`
    reasons.push(`${what}${status}: ${step.error.name}: ${step.error.message}`)
  }
  if (step && !step.error && mcpToolError(step)) {
    const text = mcpResultValue(step.type === 'tool' ? step.result : undefined)
    reasons.push(`the MCP tool reported an error: ${typeof text === 'string' ? text : JSON.stringify(text)}`)
  }
  const bySeverity = { critical: 0, error: 1, warn: 2, info: 3 } as const
  const findings = run.findings
    .filter((f) => f.steps.includes(index))
    .sort((a, b) => bySeverity[a.severity] - bySeverity[b.severity])
  for (const f of findings) reasons.push(`${f.severity} finding ${f.kind}: ${f.message}`)
  return reasons
}

function mcpToolError(step: Step): boolean {
  return isMcpToolStep(step) && step.mcp.isError === true
}
