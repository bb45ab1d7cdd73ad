import { CrashlabError } from '../errors.ts'
import { formatDifference, type RequestDifference } from './internal/request-diff.ts'
import { RERECORD_COMMAND } from './values.ts'

/**
 * What a divergence is about, for `DivergenceError`.
 *
 * @example
 * new DivergenceError({ where: 'test "refund"', stepIndex: 2, call: 'tool get_order', nearestStep: 1, differences: [] })
 */
export interface DivergenceDetails {
  /** The run named for people: test name and cassette path. */
  where: string
  /** The step the live call would have been, in the replayed run. */
  stepIndex: number
  /** What was called: `openai-chat chat.completions`, `http models.list`, `tool get_order`. */
  call: string
  /** The recorded step the call is closest to, or null when nothing comparable was recorded. */
  nearestStep: number | null
  /** True when the nearest recorded step is the same call, already replayed (the agent repeats itself). */
  nearestUsed?: boolean
  differences: RequestDifference[]
  cassettePath?: string | undefined
  /** What to do when the change is intended, in place of re-recording (a run imported from a trace cannot be re-recorded). */
  whenIntended?: string
}

const SHOWN = 12

/**
 * A replayed run asked for something the recording does not have: a changed prompt, tool, parameter or
 * argument, or one call more than was recorded. The message names the step, the run, each changed
 * field against the nearest recorded call (a long value as a window around its first difference, with
 * the offset, so that a change at the end of a long prompt shows), and the command that re-records. It
 * stays bounded: at most 12 fields, each value cut to a short window.
 *
 * @example
 * try { await session.finish({ output }) } catch (err) {
 *   if (err instanceof DivergenceError) console.log(err.differences.map((d) => d.path))
 * }
 */
export class DivergenceError extends CrashlabError {
  override readonly name: string = 'DivergenceError'
  readonly stepIndex: number
  readonly nearestStep: number | null
  readonly differences: RequestDifference[]

  constructor(details: DivergenceDetails) {
    super('E_DIVERGENCE', message(details), { subject: details.cassettePath })
    this.stepIndex = details.stepIndex
    this.nearestStep = details.nearestStep
    this.differences = details.differences
  }
}

function message(d: DivergenceDetails): string {
  const head = `replay of ${d.where} diverged at step ${d.stepIndex}: the agent made a ${d.call} call that matches no unused recorded call.`
  let body: string
  if (d.nearestStep === null) {
    body = 'Nothing like it was recorded.'
  } else if (d.differences.length === 0) {
    body = d.nearestUsed
      ? `It is the same call as recorded step ${d.nearestStep}, which was already replayed: the agent now makes this call more often than when it was recorded.`
      : `Nearest recorded call: step ${d.nearestStep}.`
  } else {
    const lines = d.differences.slice(0, SHOWN).map((x) => `  ✖ ${formatDifference(x)}`)
    if (d.differences.length > SHOWN) lines.push(`  … and ${d.differences.length - SHOWN} more`)
    const n = d.differences.length
    body = `Nearest recorded call: step ${d.nearestStep}, ${n} field${n === 1 ? '' : 's'} changed:\n${lines.join('\n')}`
  }
  return `${head}\n${body}\nIf the change is intended, ${d.whenIntended ?? `re-record with \`${RERECORD_COMMAND}\``}.`
}
