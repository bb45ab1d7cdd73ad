/**
 * `crashlab/vitest`: the Vitest plugin and what tests use with it.
 *
 * @example
 * // vitest.config.ts
 * import { defineConfig } from 'vitest/config'
 * import { crashlab } from 'crashlab/vitest'
 * export default defineConfig({ plugins: [crashlab()] })
 *
 * // refund.test.ts
 * import { test } from 'vitest'
 * import { agentCase } from 'crashlab/vitest'
 * test('refund', agentCase(runRefundBot, { agent: 'refund-bot', input: 'Refund my order A17' }))
 */
export {
  type AgentCaseOptions,
  type AgentFixture,
  type AgentFn,
  type AgentRunOptions,
  type AgentTestAPI,
  agentCase,
  type CassetteAction,
  type CrashCellMeta,
  type CrashlabMode,
  type CrashlabReplayOptions,
  type CrashlabTaskMeta,
  type CrashMissingMeta,
  type CrashTestOptions,
  crashlabReplay,
  crashlabStore,
  crashTest,
  isLiveTest,
  live,
  REPLAY,
  type RecordMode,
  type ReplayableRun,
  type Replayer,
  type ReplayOptions,
  type RunSummary,
  replayerOf,
  type SurviveCheck,
  test,
} from '../fixtures/index.ts'
export {
  type AgentCaseMatchMode,
  type CrashlabMatchers,
  crashlabMatchers,
  type FinishWithinBudget,
  type HaveFindingOptions,
  MACHINE_PATHS,
  type MatchAgentCaseOptions,
  type PassChecksOptions,
  type ReplayExactlyOptions,
  type SurviveOptions,
  toCallTool,
  toCostLessThan,
  toFinishWithin,
  toHaveFinding,
  toMatchAgentCase,
  toPassChecks,
  toReplayExactly,
  toSurvive,
} from '../matchers/index.ts'
export { cassettePathFor, sanitizeTestName } from './cassette-path.ts'
export { type CrashlabPluginOptions, crashlab } from './crashlab-plugin.ts'
export type { ProvidedCrashlabConfig } from './provided-config.ts'
export { type CassetteTally, CrashlabReporter } from './reporter.ts'
export { type ModeInputs, parseMode, type ResolvedMode, resolveMode } from './resolve-mode.ts'
export type {
  MatchingPluginOptions,
  ProvidedPattern,
  ProvidedSessionOptions,
  RedactionOptions,
} from './session-options.ts'
