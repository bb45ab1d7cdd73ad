import type { AgentCase } from '../case/agentcase/schema.ts'
import { CrashlabError } from '../errors.ts'
import { type CompareAgentCasesOptions, compareAgentCases } from './compare-agent-cases.ts'
import { formatDifferences } from './format-differences.ts'

/**
 * The assertion behind regression tests. It throws rather than returning a result so that any test
 * runner shows it as a failure, and its message is the whole review: which paths changed, from what to
 * what, and how to accept the change when it is intended.
 */

/**
 * Options of `assertAgentCaseRegression`: those of `compareAgentCases`, plus how to name the baseline
 * and how many differences the message lists.
 *
 * @example
 * assertAgentCaseRegression(baseline, candidate, { subject: '__cassettes__/refund.agentcase', limit: 10 })
 */
export interface AssertAgentCaseRegressionOptions extends CompareAgentCasesOptions {
  /** The baseline's file or test name, shown in the message and kept as the error's `subject`. */
  subject?: string
  /** How many differences the message lists before `… and N more`. Default 20. */
  limit?: number
}

/**
 * Throws `CrashlabError` `E_REGRESSION` when `candidate` differs from `baseline` under the regression
 * rules of `compareAgentCases`. The message lists the first `limit` differing paths with abbreviated
 * expected and actual values, then a count; `err.issues` holds every difference (`code` is its kind).
 *
 * @example
 * assertAgentCaseRegression(loadAgentCase('__cassettes__/refund.agentcase'), toAgentCase(run))
 * // [crashlab] regression in __cassettes__/refund.agentcase: 1 difference (normalized mode)
 * //   $.events[7].payload.arguments.amount: expected 49, got 490 (value_mismatch)
 * // If the change is intended, accept it as the new baseline: run `vitest -u` …
 */
export function assertAgentCaseRegression(
  baseline: AgentCase,
  candidate: AgentCase,
  options: AssertAgentCaseRegressionOptions = {},
): void {
  const { subject, limit = 20, ...compareOptions } = options
  const { equal, differences } = compareAgentCases(baseline, candidate, compareOptions)
  if (equal) return
  const n = differences.length
  const where = subject ? `in ${subject}` : 'against the baseline'
  const message = [
    `regression ${where}: ${n} ${n === 1 ? 'difference' : 'differences'} ` +
      `(${compareOptions.mode ?? 'normalized'} mode; expected is the baseline, got is this run)`,
    formatDifferences(differences, { limit }),
    'If the change is intended, accept it as the new baseline: run `vitest -u` (it rewrites the baseline ' +
      'file); otherwise fix the agent so that it behaves as recorded.',
  ].join('\n')
  throw new CrashlabError('E_REGRESSION', message, {
    ...(subject !== undefined && { subject }),
    issues: differences.map((d) => ({
      code: d.kind,
      path: d.path,
      message: formatDifferences([d], { limit: 1 }).trim(),
    })),
  })
}
