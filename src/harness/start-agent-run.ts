import type { Run } from '../case/schema/run.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import type { OracleResult } from '../checks/oracles/types.ts'
import { isCircuitOpen } from '../checks/runtime/circuit-breaker.ts'
import { composeHooks } from '../checks/runtime/compose-hooks.ts'
import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import { toJsonValue } from '../engine/values.ts'
import { markFailed } from './mark-failed.ts'
import { prepareAgentRun } from './prepare-agent-run.ts'
import type { AgentRunJournal, AgentRunPlan, EndedAgentRun, PreparedAgentRun } from './types.ts'

/**
 * What the agent did: returned `output`, or threw `error` (the key is there when it threw).
 *
 * @example
 * const result: AgentResult<string> = { error: new Error('the agent broke') }
 */
export type AgentResult<O = unknown> = { output?: O; error?: unknown }

/**
 * One agent run in progress: its Session, a way to run the agent's code in it (as often as needed), and
 * its end.
 *
 * @example
 * const agentRun = await startAgentRun({ session: { mode: 'record' }, name: 'refund-bot', finishRule: 'record' })
 * const answer = await agentRun.run(() => refundBot(input))
 * const { run } = await agentRun.finish({ output: answer })
 */
export interface AgentRun<O = unknown> {
  readonly session: Session
  /** The config, runtime checks and redactor the run was opened with. */
  readonly prepared: PreparedAgentRun
  /** Runs `fn` in the run's Session; its result, or its error rethrown unchanged. */
  run<T>(fn: () => T | Promise<T>): Promise<T>
  /**
   * Ends the run by the plan's `finishRule`, checks it (runtime checks, `failIf`), grades it and gives it
   * to the journal. Called again, it gives the same answer.
   */
  finish(result?: AgentResult<O>): Promise<EndedAgentRun<O>>
  /** The run as it ended, once `finish` was called: checked, also when `finish` threw (`finishRule: 'test'`). */
  readonly ended: Run | undefined
}

/**
 * Opens an agent run the way every caller opens one: config → layered checks → runtime checks →
 * redactor → journal → Session (hooks in order: the journal's, the plan's, the runtime checks') → the
 * run's name, input, entry point and metadata (with the checks it was given, so a replay checks it the
 * same way) → the journal starts. `finish` ends it. For a callback, `runAgent` does both.
 *
 * @example
 * const agentRun = await startAgentRun({ session: { mode: 'record', label: 'refund' }, name: 'refund-bot', input, finishRule: 'record' })
 * try {
 *   const output = await agentRun.run(() => refundBot(input))
 *   await agentRun.finish({ output })
 * } catch (error) {
 *   await agentRun.finish({ error })
 * }
 */
export async function startAgentRun<I = unknown, O = unknown>(plan: AgentRunPlan<I>): Promise<AgentRun<O>> {
  const prepared =
    plan.prepared ??
    // An open Session already has its redactor and its runtime checks' hooks: nothing to read.
    (plan.session instanceof Session
      ? {
          config: plan.loadedConfig ?? {},
          checks: plan.runtimeChecks || undefined,
          redactor: plan.session.redactor,
        }
      : await prepareAgentRun(plan))
  const journal = await plan.journal?.(prepared)
  const session = openSession(plan, prepared, journal)
  journal?.start(session)
  let ended: Run | undefined
  let finishing: Promise<EndedAgentRun<O>> | undefined
  const end = async (result: AgentResult<O>): Promise<EndedAgentRun<O>> => {
    const done = await endRun(plan, prepared, session, journal, result, (run) => {
      ended = run
    })
    ended = done.run
    return done
  }
  return {
    session,
    prepared,
    run: (fn) => runInSession(session, async () => fn()),
    finish(result = {}) {
      finishing ??= end(result)
      return finishing
    },
    get ended() {
      return ended
    },
  }
}

function openSession<I>(
  plan: AgentRunPlan<I>,
  prepared: PreparedAgentRun,
  journal: AgentRunJournal | undefined,
): Session {
  const open = plan.session instanceof Session
  const session =
    plan.session instanceof Session
      ? plan.session
      : new Session({
          ...plan.session,
          name: plan.name,
          input: plan.input === undefined ? undefined : toJsonValue(plan.input),
          redactor: prepared.redactor,
          mcp: plan.session.mcp ?? prepared.config.mcp,
          // The journal first: a step is kept before any other hook (the circuit breaker) acts on it.
          hooks: composeHooks(journal?.hooks, ...(plan.hooks ?? []), prepared.checks?.hooks),
        })
  // An open Session was opened before the run knew its agent: name it now.
  if (open && plan.name !== undefined) session.run.name = plan.name
  if (open && 'input' in plan) session.run.input = toJsonValue(plan.input)
  if (plan.entryPoint) session.run.entryPoint = plan.entryPoint
  if (plan.metadata) Object.assign(session.run.metadata, plan.metadata)
  if (plan.checks !== undefined) {
    session.run.metadata.checks = toJsonValue(plan.checks)
    // An open Session's runtime checks were built before the run's own checks were known.
    if (open && prepared.checks) prepared.checks.configure(plan.checks, plan.checksWhere)
  }
  return session
}

async function endRun<I, O>(
  plan: AgentRunPlan<I>,
  prepared: PreparedAgentRun,
  session: Session,
  journal: AgentRunJournal | undefined,
  result: AgentResult<O>,
  keep: (run: Run) => void,
): Promise<EndedAgentRun<O>> {
  const threw = 'error' in result
  let output = threw ? undefined : result.output
  let error: unknown = threw ? result.error : undefined
  let errorFrom: EndedAgentRun['errorFrom'] = threw ? 'agent' : undefined
  const fail = (failure: unknown): void => {
    output = undefined
    error = failure
    errorFrom = 'run'
  }
  let run: Run
  try {
    run = plan.end ? await plan.end(result) : await session.finish(result)
  } catch (thrown) {
    if (plan.finishRule === 'test') {
      // Still reported: a stopped or failed run keeps its findings and cost.
      if (!plan.end) keep(prepared.checks ? prepared.checks.finalize(session.run) : session.run)
      throw thrown
    }
    if (plan.finishRule === 'replay') {
      // A divergence, steps left unused, a halt: the run is still a run, which says how it failed.
      run = markFailed(session.run, thrown)
      fail(thrown)
    } else if (isCircuitOpen(thrown)) {
      // The circuit breaker is how the run ended: checked and graded like any other (finalize marks it).
      run = session.run
      fail(thrown)
    } else if (plan.onCaptureFailure) {
      // crashlab's own failure must not reach a long-lived app: the run is kept as far as it got.
      plan.onCaptureFailure(`capture of run ${session.run.id} failed`, thrown)
      run = session.run
    } else {
      // A failed capture keeps nothing (its journal would otherwise come back as an incomplete run).
      journal?.abandon()
      throw thrown
    }
  }
  if (plan.finishRule === 'test' && threw) {
    // A test fails with the agent's own error (`runAgent` throws it): the run is checked, not graded.
    const checked = plan.end || !prepared.checks ? run : prepared.checks.finalize(run)
    return { run: checked, session, output, error, errorFrom, results: [], stored: journal?.finish(checked) }
  }
  if (error === undefined && plan.failIf) {
    const failure = plan.failIf(session)
    if (failure !== undefined) {
      run = markFailed(run, failure)
      fail(failure)
    }
  }
  let checked: Run | undefined
  let graded: { run: Run; results: OracleResult[] }
  try {
    checked = plan.end || !prepared.checks ? run : prepared.checks.finalize(run)
    graded = plan.grade
      ? await applyOracles(checked, { agent: plan.grade.agent, oracles: plan.grade.oracles })
      : { run: checked, results: [] }
  } catch (failure) {
    // A run that cannot be graded is kept as it ended; the failure is the caller's to see.
    const stored = journal?.finish(checked ?? run)
    if (!plan.onCaptureFailure) throw failure
    plan.onCaptureFailure(`could not grade run ${run.id}`, failure)
    return { run: checked ?? run, session, output, error, errorFrom, results: [], stored }
  }
  const stored = journal?.finish(graded.run)
  return { run: graded.run, session, output, error, errorFrom, results: graded.results, stored }
}
