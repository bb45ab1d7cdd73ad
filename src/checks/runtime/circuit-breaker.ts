import type { Run } from '../../case/schema/run.ts'
import type { Finding, Step } from '../../case/schema/step.ts'
import type { Session } from '../../engine/session.ts'
import type { SessionHooks } from '../../engine/types.ts'
import { CrashlabError, isCrashlabError } from '../../errors.ts'
import { createDetectors, type Detectors } from '../detectors/create-detectors.ts'
import { type ChecksOptions, resolveChecksOptions } from '../detectors/options.ts'

/**
 * The circuit breaker of one run: with `circuitBreaker: true` in the checks options, it feeds each step
 * to the runtime detectors and halts the Session (`session.halt`) at the first `critical` finding they
 * raise, with an `E_CIRCUIT_OPEN` error. From then on the Session fails every model call and wrapped
 * tool with that error, in record and in replay alike, so a replay stops at the step the recording
 * stopped at. Only `step_repetition` and `tool_error_streak` reach `critical` (at their `critical`
 * level); budgets stop at `error` and never trip it.
 *
 * @example
 * const breaker = createCircuitBreaker({ circuitBreaker: true, stepRepetition: { critical: 5 } })
 * const session = new Session({ mode: 'record', hooks: { onStep: breaker.onStep } })
 * await runInSession(session, () => agent(input)).catch(() => undefined)
 * const run = breaker.finalize(await session.finish().catch(() => session.run))
 * breaker.tripped?.kind // 'step_repetition'
 */
export interface CircuitBreaker {
  /** `circuitBreaker` of the checks options (default `false`): when off, `onStep` does nothing. */
  readonly enabled: boolean
  /** The finding that opened the circuit, once the breaker tripped. */
  readonly tripped: Finding | undefined
  /** The `E_CIRCUIT_OPEN` error the Session was halted with, once the breaker tripped. */
  readonly error: CrashlabError | undefined
  /** The Session's `onStep` hook: steps must come in order, each once, as a Session gives them. */
  readonly onStep: NonNullable<SessionHooks['onStep']>
  /**
   * What the finished run records of a trip: the agent may have caught the breaker's error and
   * returned, yet the run ended because it was stopped, so a tripped run that is not already `error`
   * becomes `error`, with no output and the breaker's error. Changes `run` in place and returns it.
   */
  finalize(run: Run): Run
}

/**
 * Creates the circuit breaker of one run from the checks options (`circuitBreaker` turns it on; the
 * detector options decide what is `critical`). It trips once: after that, it does not look at steps.
 *
 * @example
 * const breaker = createCircuitBreaker({ circuitBreaker: true, toolErrorStreak: { critical: 4 } })
 * new Session({ mode: 'record', hooks: composeHooks(userHooks, { onStep: breaker.onStep }) })
 */
export function createCircuitBreaker(checks: ChecksOptions = {}): CircuitBreaker {
  const enabled = resolveChecksOptions(checks).circuitBreaker
  // The detectors see every step only while they can still trip the breaker: the run's findings come
  // from a full pass at the end (`detectFindings`), not from here.
  const detectors: Detectors | undefined = enabled ? createDetectors(checks) : undefined
  let tripped: Finding | undefined
  let error: CrashlabError | undefined

  const onStep = (step: Step, session: Session): void => {
    if (!detectors || tripped) return
    const critical = detectors.observe(step, session.run).find((f) => f.severity === 'critical')
    if (!critical) return
    tripped = critical
    error = circuitOpenError(critical, session)
    session.halt(error)
  }

  return {
    enabled,
    get tripped() {
      return tripped
    },
    get error() {
      return error
    },
    onStep,
    finalize(run: Run): Run {
      if (!error || run.status === 'error') return run
      run.status = 'error'
      run.output = null
      run.error = { name: error.name, message: error.message, code: error.code }
      return run
    },
  }
}

/**
 * True when `error` is the circuit breaker's stop (`E_CIRCUIT_OPEN`): `session.finish()` throws it when
 * the breaker halted the run, and a finisher that sees it stores and grades the run as it ended,
 * instead of treating it as a failure of the capture.
 *
 * @example
 * try {
 *   finished = await session.finish({ output })
 * } catch (stopped) {
 *   if (!isCircuitOpen(stopped)) throw stopped
 *   finished = session.run
 * }
 */
export function isCircuitOpen(error: unknown): error is CrashlabError {
  return isCrashlabError(error, 'E_CIRCUIT_OPEN')
}

function circuitOpenError(critical: Finding, session: Session): CrashlabError {
  return new CrashlabError(
    'E_CIRCUIT_OPEN',
    `circuit breaker: ${critical.kind} at step ${critical.steps.join(', ')} of ${session.where}: ${critical.message}. ` +
      'The run was stopped there; the next model or tool call failed with this error. Turn it off with ' +
      '`checks: { circuitBreaker: false }`.',
    { subject: session.cassettePath ?? session.label },
  )
}
