import { providerFailure } from '../../case/provider-failure.ts'
import type { Run } from '../../case/schema/run.ts'
import { isFailedToolCall } from '../../checks/failed-tool-call.ts'

/**
 * Rule 1 of the heuristic: a run that returned (`status: 'ok'`), whose outcome is `pass` and whose
 * every check passed (at least one ran), is `NO_FAILURE`, whatever it went through on the way: a
 * provider failure it retried, a tool error it worked around, an argument a tool refused and the model
 * corrected, and the findings those raised. The oracles are the judge of a run; a transient error the
 * run recovered from is not its failure. A run that threw is not a passing run even when its checks
 * pass (a circuit breaker that stopped a run before it could break a rule). Null when the rule does not
 * apply; otherwise the one-sentence root cause, naming what was recovered from.
 *
 * @example
 * passingRunCause(run) // 'The run passed: its 1 check passed, and it recovered from 2 failed model calls.'
 */
export function passingRunCause(run: Run): string | null {
  if (run.status !== 'ok' || run.outcome !== 'pass') return null
  if (run.checks.length === 0 || run.checks.some((c) => !c.passed)) return null
  const recovered: string[] = []
  const provider = run.steps.filter((s) => providerFailure(s) !== null).length
  const tools = run.steps.filter((s) => s.type === 'tool' && isFailedToolCall(s)).length
  if (provider > 0) recovered.push(count(provider, 'failed model call'))
  if (tools > 0) recovered.push(count(tools, 'failed tool call'))
  const checks =
    run.checks.length === 1 ? 'its check passed' : `all ${run.checks.length} of its checks passed`
  return recovered.length === 0
    ? `The run passed: ${checks}.`
    : `The run passed: ${checks}, and it recovered from ${recovered.join(' and ')}.`
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`
}
