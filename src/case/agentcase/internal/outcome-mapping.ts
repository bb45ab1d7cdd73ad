import type { Outcome, RunStatus } from '../../schema/run.ts'
import type { StepError } from '../../schema/step.ts'
import type { AgentCaseOutcome } from '../schema.ts'

/**
 * crashlab describes the end of a run with two fields, AgentCase with one. crashlab's `status` says how
 * the execution ended (returned, threw, never ended) and `outcome` what the oracles decided; AgentCase's
 * `outcome` is the execution's result. The tables below are in docs/agentcase.md. An export keeps the
 * exact pair under `extensions["dev.crashlab"]`, so the mapping back only matters for foreign cases.
 */

/**
 * The AgentCase outcome of a crashlab run:
 *
 * | status \ outcome | pass    | fail    | unknown |
 * |------------------|---------|---------|---------|
 * | ok               | success | failure | success |
 * | error            | failure | failure | failure |  (AbortError → cancelled, TimeoutError → timeout)
 * | incomplete       | partial | failure | partial |
 *
 * @example
 * toAgentCaseOutcome('ok', 'fail', null) // 'failure'
 */
export function toAgentCaseOutcome(
  status: RunStatus,
  outcome: Outcome,
  error: StepError | null,
): AgentCaseOutcome {
  if (status === 'error') {
    // The name is what JavaScript itself uses for these two (AbortSignal.abort(), AbortSignal.timeout()).
    if (error?.name === 'AbortError') return 'cancelled'
    if (error?.name === 'TimeoutError') return 'timeout'
    return 'failure'
  }
  if (outcome === 'fail') return 'failure'
  // An incomplete run never ended: what it did may have been right, but it did not finish.
  return status === 'incomplete' ? 'partial' : 'success'
}

export interface ImportedEnd {
  status: RunStatus
  outcome: Outcome
  error: StepError | null
}

/**
 * The crashlab status, outcome and run error of a foreign case, from its outcome, the run-level
 * exception it records (if any) and whether it has an `execution.end` event.
 *
 * @example
 * fromAgentCaseOutcome('timeout', null, true) // { status: 'error', outcome: 'unknown', error: { name: 'TimeoutError', … } }
 */
export function fromAgentCaseOutcome(
  outcome: AgentCaseOutcome,
  runError: StepError | null,
  ended: boolean,
): ImportedEnd {
  switch (outcome) {
    case 'success':
      return { status: 'ok', outcome: 'pass', error: null }
    case 'failure':
      return runError
        ? { status: 'error', outcome: 'fail', error: runError }
        : { status: 'ok', outcome: 'fail', error: null }
    case 'partial':
      return { status: 'incomplete', outcome: 'unknown', error: runError }
    case 'cancelled':
      return {
        status: 'error',
        outcome: 'unknown',
        error: runError ?? { name: 'AbortError', message: 'the execution was cancelled' },
      }
    case 'timeout':
      return {
        status: 'error',
        outcome: 'unknown',
        error: runError ?? { name: 'TimeoutError', message: 'the execution timed out' },
      }
    case 'unknown':
      if (runError) return { status: 'error', outcome: 'unknown', error: runError }
      return { status: ended ? 'ok' : 'incomplete', outcome: 'unknown', error: null }
  }
}
