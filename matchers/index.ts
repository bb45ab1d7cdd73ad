/**
 * crashlab's `expect` matchers for agent runs. Importing this module registers them with Vitest's
 * `expect.extend` and adds their types to Vitest's `Matchers` interface; the plugin's setup file imports
 * it, so a test that uses the plugin needs no import of its own.
 *
 * @example
 * import './matchers/index.ts' // what the crashlab() plugin's setup file does for every test file
 * expect(run).toCallTool('get_order', { order_id: 'A17' })
 * await expect(run).toReplayExactly()
 * await expect(run).toSurvive({ kind: 'rate_limit' })
 */
import { expect } from 'vitest'
import type { Fault } from '../src/on-demand.ts'
import { toCallTool } from './to-call-tool.ts'
import { toCostLessThan } from './to-cost-less-than.ts'
import { type FinishWithinBudget, toFinishWithin } from './to-finish-within.ts'
import { type HaveFindingOptions, toHaveFinding } from './to-have-finding.ts'
import { type MatchAgentCaseOptions, toMatchAgentCase } from './to-match-agent-case.ts'
import { type PassChecksOptions, toPassChecks } from './to-pass-checks.ts'
import { type ReplayExactlyOptions, toReplayExactly } from './to-replay-exactly.ts'
import { type SurviveOptions, toSurvive } from './to-survive.ts'

export { defaultBaselinePath, sanitizeTestName } from './internal/baseline-path.ts'
export { type UpdatePolicy, updatePolicy } from './internal/baseline-store.ts'
export { toCallTool } from './to-call-tool.ts'
export { toCostLessThan } from './to-cost-less-than.ts'
export { type FinishWithinBudget, toFinishWithin } from './to-finish-within.ts'
export { type HaveFindingOptions, toHaveFinding } from './to-have-finding.ts'
export {
  type AgentCaseMatchMode,
  MACHINE_PATHS,
  type MatchAgentCaseOptions,
  toMatchAgentCase,
} from './to-match-agent-case.ts'
export { type PassChecksOptions, toPassChecks } from './to-pass-checks.ts'
export { type ReplayExactlyOptions, toReplayExactly } from './to-replay-exactly.ts'
export { type SurviveOptions, toSurvive } from './to-survive.ts'

/**
 * Every crashlab matcher, for `expect.extend` on an `expect` of your own (importing this module already
 * registers them on Vitest's global `expect`).
 *
 * @example
 * import { crashlabMatchers } from './matchers/index.ts'
 * myExpect.extend(crashlabMatchers)
 */
export const crashlabMatchers = {
  toPassChecks,
  toCallTool,
  toFinishWithin,
  toReplayExactly,
  toMatchAgentCase,
  toHaveFinding,
  toCostLessThan,
  toSurvive,
}

expect.extend(crashlabMatchers)

/**
 * The types of crashlab's matchers, added to Vitest's matcher types below. `R` is what a matcher call
 * returns (`void`, or a promise after `.resolves`).
 *
 * @example
 * const check: CrashlabMatchers<void>['toPassChecks'] = (options) => expect(run).toPassChecks(options)
 */
export interface CrashlabMatchers<R> {
  /**
   * Every oracle passed and no runtime finding is at or above `minSeverity` (default `error`).
   *
   * @example
   * expect(run).toPassChecks({ minSeverity: 'warn' })
   */
  toPassChecks(options?: PassChecksOptions): R
  /**
   * The run called the tool `name`; with `args`, with these arguments (`toEqual` equality, asymmetric matchers allowed).
   *
   * @example
   * expect(run).toCallTool('issue_refund', expect.objectContaining({ amount: 49 }))
   */
  toCallTool(name: string, args?: unknown): R
  /**
   * The run stayed within every budget given (inclusive limits).
   *
   * @example
   * expect(run).toFinishWithin({ steps: 20, tokens: 8000, ms: 30_000 })
   */
  toFinishWithin(budget: FinishWithinBudget): R
  /**
   * Replaying the run offline makes the same LLM requests, tool calls and output. Async: await it.
   *
   * @example
   * await expect(run).toReplayExactly()
   */
  toReplayExactly(options?: ReplayExactlyOptions): Promise<void>
  /**
   * The run matches its `.agentcase` regression baseline; a missing one is written (never on CI), `vitest -u` rewrites it.
   *
   * @example
   * expect(run).toMatchAgentCase()
   * expect(run).toMatchAgentCase('final', { mode: 'normalized' })
   */
  toMatchAgentCase(name?: string, options?: MatchAgentCaseOptions): R
  toMatchAgentCase(options: MatchAgentCaseOptions): R
  /**
   * A runtime detector reported a finding of this kind (at or above `minSeverity`, naming `step`, when given).
   *
   * @example
   * expect(run).toHaveFinding('step_repetition', { minSeverity: 'critical' })
   */
  toHaveFinding(kind: string, options?: HaveFindingOptions): R
  /**
   * The run's estimated cost is below `usd`; throws when the cost is unknown (a model with no price).
   *
   * @example
   * expect(run).toCostLessThan(0.05)
   */
  toCostLessThan(usd: number): R
  /**
   * The agent survives each fault at each recorded step it fits, each in an offline replay of the run
   * with the fault in place of that step's answer; diverged cells do not fail it. Async: await it.
   *
   * @example
   * await expect(run).toSurvive([{ kind: 'rate_limit' }, { kind: 'tool_html_error' }], { steps: 'all' })
   */
  toSurvive(faults: Fault | readonly Fault[], options?: SurviveOptions): Promise<void>
}

declare module 'vitest' {
  // Vitest 5 declares `Matchers<R, T>`, which every assertion extends.
  interface Matchers<R, T> extends CrashlabMatchers<R> {}
}

declare global {
  // Vitest 4.1 declares `Matchers<T>`, which the declaration above cannot merge with (TypeScript merges
  // interfaces only when their type parameters are the same); its assertions also extend the
  // Jest-compatible `jest.Matchers<R, T>`, which this one reaches. Vitest 5 has no such interface, and
  // an unused one costs nothing there.
  namespace jest {
    interface Matchers<R, T> extends CrashlabMatchers<R> {}
  }
}
