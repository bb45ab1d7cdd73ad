import type { CheckResult, Outcome, Run } from '../../case/schema/run.ts'
import { type RunView, viewRun } from '../run-view.ts'
import { registeredOracles } from './oracle-registry.ts'
import { runOracle } from './run-oracle.ts'
import type { Oracle, OracleFn, OracleResult } from './types.ts'

/**
 * Options of `evaluateOracles` and `applyOracles`.
 *
 * @example
 * await evaluateOracles(run, { agent: 'refund-bot', oracles: [(r) => r.status === 'ok'], timeoutMs: 5_000 })
 */
export interface EvaluateOraclesOptions {
  /** Whose registered oracles run. Defaults to the run's name, which is the agent's name. */
  agent?: string
  /** More oracles for this run only, after the registered ones; a bare function is named `<agent>#inline<n>`. */
  oracles?: ReadonlyArray<Oracle | OracleFn>
  /** Turn an oracle that has not settled after this many milliseconds into an error of the oracle. */
  timeoutMs?: number
}

/**
 * What the oracles decided about a run.
 *
 * @example
 * const { outcome, results } = await evaluateOracles(run)
 * const broken = results.filter((r) => r.status === 'error') // oracles to fix, not agent failures
 */
export interface OracleEvaluation {
  /** `pass` when every oracle passed, `fail` when one failed or broke, `unknown` when none ran. */
  outcome: Outcome
  /** The results in the stored shape, ready for `run.checks`. */
  checks: CheckResult[]
  /** The same results with their status, to tell an oracle that broke (`error`) from one that failed. */
  results: OracleResult[]
}

/**
 * Runs the oracles registered for the agent, then any passed in `options.oracles`, one after the other
 * in that order, on a view of the run. Never throws because of an oracle (see `runOracle`); an oracle that
 * broke counts against the outcome, since a check that could not run did not pass.
 *
 * @example
 * check('refund-bot', (run) => run.toolCalls('issue_refund').length <= 1 || 'refunded twice')
 * const { outcome, checks } = await evaluateOracles(run, { agent: 'refund-bot' })
 * outcome // 'pass'
 * checks  // [{ name: 'refund-bot#1', passed: true }]
 */
export async function evaluateOracles(
  run: Run,
  options: EvaluateOraclesOptions = {},
): Promise<OracleEvaluation> {
  const agent = options.agent ?? run.name
  const oracles = [...registeredOracles(agent), ...explicit(agent, options.oracles ?? [])]
  // One view for all oracles: the tool-call list is computed once, whoever asks first.
  const view: RunView = viewRun(run)
  const results: OracleResult[] = []
  for (const oracle of oracles) results.push(await runOracle(oracle, view, { timeoutMs: options.timeoutMs }))
  return { outcome: outcomeOf(results), checks: results.map(toCheckResult), results }
}

/**
 * The outcome of a list of check results: `unknown` for none, `pass` when all passed, else `fail`.
 *
 * @example
 * outcomeOf([{ name: 'a', passed: true }, { name: 'b', passed: false }]) // 'fail'
 */
export function outcomeOf(checks: ReadonlyArray<Pick<CheckResult, 'passed'>>): Outcome {
  if (checks.length === 0) return 'unknown'
  return checks.every((c) => c.passed) ? 'pass' : 'fail'
}

/** The stored shape: exactly `{ name, passed, message? }`, as the cassette schema is strict. */
function toCheckResult(result: OracleResult): CheckResult {
  return result.message === undefined
    ? { name: result.name, passed: result.passed }
    : { name: result.name, passed: result.passed, message: result.message }
}

function explicit(agent: string, oracles: ReadonlyArray<Oracle | OracleFn>): Oracle[] {
  let n = 0
  return oracles.map((o) => {
    if (typeof o !== 'function') return o
    n++
    return { name: o.name || `${agent}#inline${n}`, fn: o }
  })
}
