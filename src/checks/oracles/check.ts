import { CrashlabError } from '../../errors.ts'
import { addOracle, nextDefaultName } from './oracle-registry.ts'
import type { OracleFn } from './types.ts'

/**
 * Options of `check`.
 *
 * @example
 * check('refund-bot', (run) => run.toolCalls('issue_refund').length <= 1, { name: 'refunds-once' })
 */
export interface CheckOptions {
  /**
   * The oracle's name, the key of its result in `run.checks`. Defaults to the function's name, or to
   * `<agent>#<n>` for an anonymous function.
   */
  name?: string
}

/**
 * Registers an outcome oracle for every run of `agent`: when one of its runs ends, `evaluateOracles`
 * calls `fn` with the run (as a `RunView`). The oracle passes by returning `true` or nothing, and fails
 * by returning `false`, a message, or by throwing an assertion error (Vitest's `expect`, node:assert);
 * anything else it throws is reported as an error of the oracle, not as a failure of the agent.
 *
 * The registry is process-wide. Returns a function that removes this registration, for tests that
 * register oracles of their own.
 *
 * @example
 * import { expect } from 'vitest'
 * import { check } from 'crashlab'
 *
 * check('refund-bot', function refundNotAboveTotal(run) {
 *   for (const call of run.toolCalls('issue_refund', { okOnly: true })) expect(call.args.amount).toBeLessThanOrEqual(49)
 * })
 *
 * const off = check('refund-bot', (run) => run.finalMessage?.includes('refund') ?? 'no final message')
 * off() // unregistered
 */
export function check(agent: string, fn: OracleFn, options: CheckOptions = {}): () => void {
  if (typeof agent !== 'string' || agent.length === 0) {
    throw new CrashlabError(
      'E_ORACLE_INVALID',
      `check() needs the agent's name first, as in check('refund-bot', fn); got ${describe(agent)}`,
    )
  }
  if (typeof fn !== 'function') {
    throw new CrashlabError(
      'E_ORACLE_INVALID',
      `check('${agent}', fn) needs a function that reads the run; got ${describe(fn)}`,
      { subject: agent },
    )
  }
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name.length === 0)) {
    throw new CrashlabError(
      'E_ORACLE_INVALID',
      `check('${agent}', fn, { name }) needs a non-empty name; got ${describe(options.name)}`,
      { subject: agent },
    )
  }
  // `fn.name` is '' for an inline arrow function: the counter keeps such names distinct and stable.
  const name = options.name ?? (fn.name || nextDefaultName(agent))
  return addOracle(agent, { name, fn })
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  return value === null ? 'null' : typeof value
}
