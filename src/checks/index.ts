/**
 * Grading runs: outcome oracles registered per agent with `check`, evaluated on a `RunView` of the
 * finished run, and the view's helpers (tool calls from wrapped tools and from model responses, merged).
 */

export {
  CHECKS_DEFAULTS,
  type ChecksOptions,
  ChecksOptionsSchema,
  createDetectors,
  type Detectors,
  detectFindings,
  isTrustedChecksOptions,
  type ResolvedChecksOptions,
  resolveChecksOptions,
  trustChecksOptions,
} from './detectors/index.ts'
export { isErrorResult, isFailedToolCall, type ToolOutcome } from './failed-tool-call.ts'
export { type GradeOptions, gradeRun } from './grade-run.ts'
export { type AppliedOracles, applyOracles } from './oracles/apply-oracles.ts'
export { type CheckOptions, check } from './oracles/check.ts'
export {
  type EvaluateOraclesOptions,
  evaluateOracles,
  type OracleEvaluation,
  outcomeOf,
} from './oracles/evaluate-oracles.ts'
export { clearOracles, registeredOracles } from './oracles/oracle-registry.ts'
export { type RunOracleOptions, runOracle } from './oracles/run-oracle.ts'
export type { Oracle, OracleFn, OracleResult, OracleReturn, OracleStatus } from './oracles/types.ts'
export { type RunView, type ToolCall, type ToolCallsOptions, viewRun } from './run-view.ts'
export { composeHooks } from './runtime/compose-hooks.ts'
export { RuntimeChecks, type RuntimeChecksOptions } from './runtime/runtime-checks.ts'
