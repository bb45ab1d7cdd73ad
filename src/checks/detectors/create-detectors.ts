import type { Run } from '../../case/schema/run.ts'
import type { Finding, Step } from '../../case/schema/step.ts'
import { badToolArgs } from './internal/bad-tool-args.ts'
import { budget } from './internal/budget.ts'
import type { Detector, StepContext } from './internal/detector.ts'
import { FindingLog } from './internal/finding-log.ts'
import { lengthCutoff } from './internal/length-cutoff.ts'
import { stepRepetition } from './internal/step-repetition.ts'
import { suspiciousToolResult } from './internal/suspicious-tool-result.ts'
import { ToolCallTracker } from './internal/tool-call-tracker.ts'
import { toolErrorStreak } from './internal/tool-error-streak.ts'
import { type ChecksOptions, type ResolvedChecksOptions, resolveChecksOptions } from './options.ts'

/**
 * The runtime detectors of one run, fed step by step.
 *
 * @example
 * const detectors = createDetectors({ maxSteps: 20 })
 * session.hooks.onStep = (step, session) => {
 *   for (const f of detectors.observe(step, session.run)) if (f.severity === 'critical') stopTheAgent(f)
 * }
 */
export interface Detectors {
  /** The options in force, defaults filled in. */
  readonly options: ResolvedChecksOptions
  /**
   * Feeds the next step of the run (steps must come in order, each once) and returns what this step
   * raised: new findings, and findings it escalated (a repetition that went from `warn` to `critical`
   * comes back with its new severity and every step so far). A finding that only grows (one more
   * repeat at the same severity) is not returned again; `findings()` has it with all its steps. Only the
   * run's own fields (`startedAt`) are read from `run`, never its other steps: it may be the run being
   * recorded, still growing.
   */
  observe(step: Step, run: Run): Finding[]
  /** Every finding so far, once each, at its current severity, in the order first raised. */
  findings(): Finding[]
}

/**
 * Creates the detectors for one run: the incremental form of `detectFindings`, for findings as steps
 * arrive (a recording, a replay, the circuit breaker). Feeding every step of a run to `observe` and
 * then calling `findings()` gives exactly `detectFindings(run, options)`. Work per step is constant
 * apart from reading the step itself, so a run costs time linear in its size.
 *
 * @example
 * import { createDetectors } from 'crashlab'
 *
 * const detectors = createDetectors({ stepRepetition: { threshold: 3, critical: 5 } })
 * for (const step of run.steps) {
 *   const raised = detectors.observe(step, run)
 *   if (raised.some((f) => f.severity === 'critical')) break // what the circuit breaker does
 * }
 * detectors.findings() // [{ kind: 'step_repetition', severity: 'critical', steps: [0, 2, 4, 6, 8], ... }]
 */
export function createDetectors(options: ChecksOptions = {}): Detectors {
  const resolved = resolveChecksOptions(options)
  const detectors: Detector[] = []
  if (resolved.stepRepetition) detectors.push(stepRepetition(resolved.stepRepetition))
  if (resolved.toolErrorStreak) detectors.push(toolErrorStreak(resolved.toolErrorStreak))
  if (resolved.badToolArgs) detectors.push(badToolArgs())
  if (resolved.suspiciousToolResult) detectors.push(suspiciousToolResult())
  if (Object.keys(resolved.limits).length > 0) detectors.push(budget(resolved.limits, resolved.warnAt))
  if (resolved.lengthCutoff) detectors.push(lengthCutoff())
  const onStep = detectors.filter((d) => d.onStep)
  const onResult = detectors.filter((d) => d.onToolResult)
  const onCall = detectors.filter((d) => d.onToolCall)
  const tracker = new ToolCallTracker()
  const log = new FindingLog()

  return {
    options: resolved,
    observe(step: Step, run: Run): Finding[] {
      const ctx: StepContext = { step, run, log }
      for (const d of onStep) d.onStep!(ctx)
      if (onResult.length > 0 || onCall.length > 0) {
        const events = tracker.observe(step)
        for (const result of events.results) for (const d of onResult) d.onToolResult!(result, ctx)
        for (const call of events.calls) for (const d of onCall) d.onToolCall!(call, ctx)
      }
      return log.drain()
    },
    findings(): Finding[] {
      return log.all()
    },
  }
}
