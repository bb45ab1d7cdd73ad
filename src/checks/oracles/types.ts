import type { CrashlabError } from '../../errors.ts'
import type { RunView } from '../run-view.ts'

/**
 * What an oracle may return: `true`, nothing (`undefined` / `null`) to pass; `false` or a message to fail.
 * Throwing an assertion error (Vitest's `expect`, node:assert, chai) also fails, with its message.
 *
 * @example
 * const verdict: OracleReturn = amount <= 49 || `refunded ${amount}`
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an oracle declared `(run): void` or with no return statement must type-check
export type OracleReturn = boolean | string | undefined | null | void

/**
 * An outcome oracle: reads the finished run and says whether it did what it should. May be async.
 *
 * @example
 * const refundNotAboveTotal: OracleFn = (run) => {
 *   for (const call of run.toolCalls('issue_refund')) if (call.args.amount > 49) return `refunded ${call.args.amount}`
 * }
 */
export type OracleFn = (run: RunView) => OracleReturn | Promise<OracleReturn>

/**
 * An oracle with its name: the name is the key of its result in `run.checks`, in reports and in diffs.
 *
 * @example
 * const oracle: Oracle = { name: 'refund-not-above-total', fn: (run) => run.toolCalls('issue_refund').length <= 1 }
 */
export interface Oracle {
  name: string
  fn: OracleFn
}

/**
 * How one oracle went: `error` when the oracle itself broke (threw a non-assertion, timed out, returned
 * something that is not a verdict), as opposed to `fail`, where the oracle judged the run and it failed.
 *
 * @example
 * if (result.status === 'error') throw result.error // a bug in the oracle, not in the agent
 */
export type OracleStatus = 'pass' | 'fail' | 'error'

/**
 * One oracle's result. Its first three fields are the stored `CheckResult`; the rest tells an oracle that
 * broke from one that failed, which the stored shape leaves to the message prefix `oracle <name> threw:`.
 *
 * @example
 * const result: OracleResult = { name: 'refund-not-above-total', passed: false, message: 'refunded 490', status: 'fail' }
 */
export interface OracleResult {
  name: string
  passed: boolean
  message?: string
  status: OracleStatus
  /** For `status: 'error'`: an `E_ORACLE_ERROR` CrashlabError whose `cause` is what the oracle threw. */
  error?: CrashlabError
}
