import type { Run } from '../case/schema/run.ts'
import { DivergenceError, formatDifference } from '../engine/index.ts'
import { isCrashlabError } from '../errors.ts'
import type { Fault } from './faults.ts'
import { faultLabel } from './faults.ts'
import type { CrashCell } from './inject.ts'

/**
 * How an agent came out of one fault: `survived` (it finished, its oracles passed and the caller's
 * `survive` agreed), `failed` (it threw, an oracle or a check failed, or `survive` said no), or
 * `diverged` (it asked for something the recording does not hold, so it could not go on offline: not
 * a failure of the agent, and not a survival either).
 */
export type CrashOutcome = 'survived' | 'failed' | 'diverged'

/** One cell of a crash-test matrix, judged. */
export interface CrashCellResult extends CrashCell {
  outcome: CrashOutcome
  /** Why, in one line: the agent's error, the failed checks, or what it asked for that the recording lacks. */
  detail: string
  /** The variant's run id (stored when a store was given). */
  runId?: string
}

/** A caller's own verdict on a variant: false (or a thrown error) means the agent did not survive. */
export type SurviveFn = (run: Run, fault: Fault) => unknown

/**
 * Judges a variant run: the error it ended with, its oracles and checks, then `survive`.
 *
 * @example
 * const { outcome, detail } = judgeVariant(variant, { kind: 'rate_limit' }, { error, injected: true })
 */
export function judgeVariant(
  run: Run,
  fault: Fault,
  options: { error?: unknown; injected: boolean; survive?: SurviveFn },
): { outcome: CrashOutcome; detail: string } {
  const { error } = options
  if (
    isCrashlabError(error, 'E_DIVERGENCE') ||
    (run.error?.name === 'DivergenceError' && error !== undefined)
  )
    return { outcome: 'diverged', detail: askedFor(error) }
  if (!options.injected)
    return {
      outcome: 'diverged',
      detail: `the agent never made the call the fault (${faultLabel(fault)}) stands in for`,
    }
  if (error !== undefined) return { outcome: 'failed', detail: firstLine(errorText(error)) }
  const failedChecks = run.checks.filter((c) => !c.passed)
  if (failedChecks.length > 0 || run.outcome === 'fail')
    return {
      outcome: 'failed',
      detail: failedChecks.length
        ? `failed: ${failedChecks.map((c) => (c.message ? `${c.name} (${c.message})` : c.name)).join(', ')}`
        : 'the run failed',
    }
  if (options.survive) {
    try {
      if (options.survive(run, fault) === false) return { outcome: 'failed', detail: 'survive() said no' }
    } catch (thrown) {
      return { outcome: 'failed', detail: `survive(): ${firstLine(errorText(thrown))}` }
    }
  }
  return { outcome: 'survived', detail: 'finished' }
}

/**
 * What a diverged variant asked for that the recording lacks: the call, and the first field that
 * differs from the nearest recorded call (a divergence's message says the rest).
 */
function askedFor(error: unknown): string {
  if (!(error instanceof DivergenceError)) return firstLine(errorText(error))
  const call = /made an? (.+?) call that matches/.exec(error.message)?.[1] ?? 'a call'
  const first = error.differences[0]
  const more = error.differences.length > 1 ? ` (and ${error.differences.length - 1} more fields)` : ''
  const what = first ? `: ${clip(formatDifference(first), 160)}${more}` : ''
  return `asked at step ${error.stepIndex} for ${call} call the recording does not hold${what}`
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? ''
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}
