import type { Run } from '../../case/schema/run.ts'
import { type EvaluateOraclesOptions, evaluateOracles, type OracleEvaluation } from './evaluate-oracles.ts'

/**
 * A run graded by its oracles, with how each oracle went.
 *
 * @example
 * const { run: graded } = await applyOracles(run)
 * writeCassette(path, graded)
 */
export interface AppliedOracles extends OracleEvaluation {
  /** A new run: the input's fields with `checks` and `outcome` replaced. */
  run: Run
}

/**
 * Grades a run: evaluates its oracles (see `evaluateOracles`) and returns a new run whose `checks` and
 * `outcome` are theirs. The run passed in is left as it was, so a caller may keep the ungraded run, or
 * grade a stored run again (`crashlab check`) without touching the loaded copy. With no oracle at all,
 * the outcome is `unknown` and `checks` is empty.
 *
 * @example
 * check('refund-bot', function refundNotAboveTotal(run) {
 *   return run.toolCalls('issue_refund').every((c) => c.args.amount <= 49) || 'refund above the order total'
 * })
 * const { run: graded, results } = await applyOracles(run)
 * graded.outcome // 'fail'
 * graded.checks  // [{ name: 'refundNotAboveTotal', passed: false, message: 'refund above the order total' }]
 * run.outcome    // still 'unknown'
 */
export async function applyOracles(run: Run, options: EvaluateOraclesOptions = {}): Promise<AppliedOracles> {
  const evaluation = await evaluateOracles(run, options)
  return { ...evaluation, run: { ...run, checks: evaluation.checks, outcome: evaluation.outcome } }
}
