import type { Run } from '../case/schema/run.ts'
import type { Session } from '../engine/session.ts'
import type { CrashlabError } from '../errors.ts'
import { isCrashlabError } from '../errors.ts'

/**
 * A run that failed (a divergence, steps left unused, a halt, a fork that never went live) ends as an
 * error run naming the failure, also when the agent threw after it: crashlab answered the agent with a
 * network error, so the agent's error follows from the failure. A crashlab error keeps its `code`.
 *
 * @example
 * const failed = markFailed(session.run, divergence)
 * failed.status // 'error'
 * failed.error  // { name: 'DivergenceError', message: '[crashlab] replay of … diverged at step 2', code: 'E_DIVERGENCE' }
 */
export function markFailed(run: Run, error: unknown): Run {
  const e = isCrashlabError(error)
    ? { name: error.name, message: error.message, code: error.code }
    : error instanceof Error
      ? { name: error.name, message: error.message }
      : { name: 'Error', message: String(error) }
  return { ...run, status: 'error', output: null, error: e }
}

/**
 * What failed a Session's replay, as its run should report it: the halt, else its first crashlab error
 * that is not a capture failure (`E_CAPTURE` never replaces what the run did). Undefined when none.
 *
 * @example
 * const failure = replayFailureOf(session)
 * const run = failure ? markFailed(session.run, failure) : session.run
 */
export function replayFailureOf(session: Session): CrashlabError | undefined {
  return session.halted ?? session.errors.find((e) => e.code !== 'E_CAPTURE')
}
