/**
 * Record modes: the one owner of what a test does with its cassette. The mode list and its parsing,
 * the resolution of the switches, one strategy object per mode (replay, missing, all, diverged, off),
 * the fork policy of `crashlab replay`/`crashlab fork`, and the rule applied when a run ends. The
 * plugin, the CLI and `record()` share it; it never imports Vitest.
 */
export { allMode } from './all-mode.ts'
export { divergedMode } from './diverged-mode.ts'
export { actionAfterRun, shouldWriteCassette } from './finish-rule.ts'
export { forkPolicy, type TestOverride } from './fork-policy.ts'
export { missingCassetteError, RECORD_MISSING_COMMAND } from './missing-cassette.ts'
export { missingMode } from './missing-mode.ts'
export { offMode } from './off-mode.ts'
export { parseMode } from './parse-mode.ts'
export { type PlanTestInputs, planTest } from './plan-test.ts'
export { isRecordMode, RECORD_MODES } from './record-mode-list.ts'
export { RECORD_MODE_STRATEGIES, strategyFor } from './registry.ts'
export { replayMode } from './replay-mode.ts'
export { type ModeInputs, type ResolvedMode, resolveMode } from './resolve-mode.ts'
export type {
  CassetteAction,
  CassetteInputs,
  CommonSessionOptions,
  RecordMode,
  RecordModeStrategy,
  RecordPlan,
} from './types.ts'
