/**
 * `crashlab/tasks`: a verification as Vitest tasks, one test per fork, spread over the worker pool and,
 * with `--shard` and `--merge-reports`, over machines (docs/verify.md, "As Vitest tasks").
 */
export { defineVerifyTasks } from './define-verify-tasks.ts'
export { runSessionTasks, type SessionTasksOptions } from './run-session-tasks.ts'
export {
  DEFAULT_SLOTS,
  runVerifyTasks,
  type VerifyTasksOptions,
  type VerifyTasksResult,
} from './run-verify-tasks.ts'
export {
  defineDiagnoseTasks,
  defineSessionVerifyTasks,
  type ProvidedTasksConfig,
  selectFailedRuns,
  sessionTag,
} from './session-tasks.ts'
export {
  readVerifyPlanFile,
  type TrialMeta,
  trialsOfSlot,
  VERIFY_PLAN_ENV,
  type VerifyPlanFile,
} from './verify-plan-file.ts'
export { CrashlabVerifyReporter, type VerifyReporterOptions } from './verify-reporter.ts'
