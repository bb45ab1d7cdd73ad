/**
 * `crashlab/tasks`: a verification as Vitest tasks, one test per fork, spread over the worker pool and,
 * with `--shard` and `--merge-reports`, over machines (docs/verify.md, "As Vitest tasks"), and the
 * session's diagnose and verify tasks the plugin's `tasks` option adds (docs/vitest.md).
 */
export {
  DEFAULT_SLOTS,
  type ProvidedTasksConfig,
  runSessionTasks,
  runVerifyTasks,
  type SessionTasksOptions,
  selectFailedRuns,
  sessionTag,
  type TrialMeta,
  type VerifyPlanFile,
  type VerifyTasksOptions,
  type VerifyTasksResult,
} from '../../src/internal.ts'
export { defineVerifyTasks, trialTest } from './define-verify-tasks.ts'
export { defineDiagnoseTasks, defineSessionVerifyTasks } from './session-tasks.ts'
export { CrashlabVerifyReporter, type VerifyReporterOptions } from './verify-reporter.ts'
