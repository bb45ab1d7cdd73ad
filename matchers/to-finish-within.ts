import type { MatcherState, SyncMatcherResult } from 'vitest'
import { CrashlabError, isMcpHttpStep, type Run, type RunView } from '../src/internal.ts'
import { asRunView } from './internal/as-run-view.ts'

/**
 * Budgets are inclusive limits on what a run cost. Each is measured from the recording, not from
 * counters the agent kept: steps are `run.steps` but MCP's own messages (as `maxSteps` counts), LLM calls the LLM steps, tool calls the merged
 * `RunView.toolCalls()` (what `toCallTool` sees), tokens the run's usage totals, and time the span from
 * `startedAt` to `endedAt` (or to the end of the last step, for a run that never ended).
 */

/**
 * The budgets of `toFinishWithin`; give at least one. A run is within a budget when its measure is at
 * most the limit.
 *
 * @example
 * expect(run).toFinishWithin({ steps: 20, tokens: 8_000, llmCalls: 6, toolCalls: 5, ms: 30_000 })
 */
export interface FinishWithinBudget {
  /**
   * Every step: LLM calls, tool calls (MCP tools' included) and other HTTP exchanges, but not MCP's own
   * messages (`mcp:` steps: the handshake, `tools/list`), as the `maxSteps` budget counts.
   */
  steps?: number
  /** `usage.inputTokens + usage.outputTokens` (cached and reasoning tokens are inside those). */
  tokens?: number
  /** LLM steps. */
  llmCalls?: number
  /** Tool calls, wrapped or seen only in model responses, failed and blocked ones included. */
  toolCalls?: number
  /** Wall-clock milliseconds of the run. */
  ms?: number
}

type BudgetKey = keyof FinishWithinBudget
const KEYS: readonly BudgetKey[] = ['steps', 'tokens', 'llmCalls', 'toolCalls', 'ms']

const MEASURE: Record<BudgetKey, (view: RunView, run: Run) => number> = {
  steps: (_view, run) => run.steps.filter((s) => !isMcpHttpStep(s)).length,
  tokens: (_view, run) => run.usage.inputTokens + run.usage.outputTokens,
  llmCalls: (view) => view.llmCalls().length,
  toolCalls: (view) => view.toolCalls().length,
  ms: (_view, run) => durationMs(run),
}

/**
 * `expect(run).toFinishWithin(budget)`: the run stayed within every budget given. A failure names each
 * exceeded budget with the measured value and the limit.
 *
 * @example
 * expect(run).toFinishWithin({ steps: 20, llmCalls: 6 })
 * expect(runawayRun).not.toFinishWithin({ toolCalls: 10 })
 */
export function toFinishWithin(
  this: MatcherState,
  received: unknown,
  budget: FinishWithinBudget,
): SyncMatcherResult {
  const { view, run } = asRunView(received, 'toFinishWithin')
  const given = checkBudget(budget)
  const rows = given.map((key) => {
    const limit = budget[key] as number
    const actual = MEASURE[key](view, run)
    return { key, limit, actual, over: actual > limit }
  })
  const exceeded = rows.filter((r) => r.over)
  const pass = exceeded.length === 0
  const { utils } = this
  const hint = utils.matcherHint('toFinishWithin', 'run', 'budget', {
    isNot: this.isNot,
    promise: this.promise,
  })
  const message = (): string => {
    if (pass) {
      const within = rows.map(
        (r) =>
          `  ${r.key}: ${utils.RECEIVED_COLOR(String(r.actual))} ≤ ${utils.EXPECTED_COLOR(String(r.limit))}`,
      )
      return `${hint}\n\nExpected the run to exceed at least one budget, but it stayed within all of them:\n${within.join('\n')}`
    }
    const over = exceeded.map(
      (r) =>
        `  ✖ ${r.key}: ${utils.RECEIVED_COLOR(String(r.actual))} > limit ${utils.EXPECTED_COLOR(String(r.limit))}` +
        (r.key === 'ms' ? '' : ` (${r.actual - r.limit} over)`),
    )
    const ok = rows.filter((r) => !r.over).map((r) => `  ✓ ${r.key}: ${r.actual} ≤ ${r.limit}`)
    return `${hint}\n\nExpected the run to stay within its budget, but it exceeded ${exceeded.length} of ${rows.length}:\n${[...over, ...ok].join('\n')}`
  }
  return { pass, message }
}

function checkBudget(budget: FinishWithinBudget): BudgetKey[] {
  if (typeof budget !== 'object' || budget === null) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toFinishWithin expects a budget object such as { steps: 20 }, got ${String(budget)}.`,
    )
  }
  const unknown = Object.keys(budget).filter((k) => !KEYS.includes(k as BudgetKey))
  if (unknown.length > 0) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toFinishWithin: unknown budget ${unknown.join(', ')}; the budgets are ${KEYS.join(', ')}.`,
    )
  }
  const given = KEYS.filter((k) => budget[k] !== undefined)
  if (given.length === 0) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toFinishWithin: give at least one budget (${KEYS.join(', ')}).`,
    )
  }
  for (const k of given) {
    const v = budget[k]
    if (typeof v !== 'number' || Number.isNaN(v) || v < 0) {
      throw new CrashlabError(
        'E_MATCHER_USAGE',
        `toFinishWithin: ${k} must be a number ≥ 0, got ${String(v)}.`,
      )
    }
  }
  return given
}

function durationMs(run: Run): number {
  const start = Date.parse(run.startedAt)
  const end = run.endedAt
    ? Date.parse(run.endedAt)
    : run.steps.reduce((max, s) => Math.max(max, Date.parse(s.timing.startedAt) + s.timing.durationMs), start)
  return Math.max(0, end - start)
}
