/**
 * The layered diff: compare JSON values exactly, structurally or normalized, with stable paths; compare
 * AgentCases under the regression volatility rules; project a case onto its trajectory. See docs/diff.md.
 */
export type { AssertAgentCaseRegressionOptions } from './assert-agent-case-regression.ts'
export { assertAgentCaseRegression } from './assert-agent-case-regression.ts'
export { compare } from './compare.ts'
export type { CompareAgentCasesOptions } from './compare-agent-cases.ts'
export { AGENTCASE_VOLATILE_PATHS, compareAgentCases } from './compare-agent-cases.ts'
export type {
  CompareOptions,
  CompareResult,
  Difference,
  DifferenceKind,
  DiffMode,
} from './difference.ts'
export type { FormatDifferencesOptions } from './format-differences.ts'
export { formatDifferences } from './format-differences.ts'
export { DEFAULT_FLOAT_TOLERANCE } from './internal/resolve-options.ts'
export type {
  AlignedStep,
  AlignmentStatus,
  CheckChange,
  FirstDivergence,
  RunDiff,
  RunRelation,
  Side,
} from './run-diff.ts'
export { diffRuns } from './run-diff.ts'
export type { FormatRunDiffOptions } from './run-diff-format.ts'
export { formatRunDiff } from './run-diff-format.ts'
export type { Trajectory, TrajectoryCheck, TrajectoryEvent } from './trajectory-of.ts'
export { trajectoryOf } from './trajectory-of.ts'
