/**
 * `crashlab/tasks`: a verification as Vitest tasks, one test per fork, and a crash test, one test per
 * cell, spread over the worker pool and, with `--shard` and `--merge-reports`, over machines
 * (docs/verify.md and docs/crash-tests.md, "As Vitest tasks"), and the session's diagnose and verify
 * tasks the plugin's `tasks` option adds (docs/vitest.md).
 */
export {
  type CrashPlanFile,
  type CrashTaskMeta,
  type CrashTasksOptions,
  type CrashTasksPlan,
  type CrashTasksResult,
  DEFAULT_SLOTS,
  type ProvidedTasksConfig,
  runCrashTasks,
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
export { CrashlabCrashReporter, type CrashReporterOptions } from './crash-reporter.ts'
export { defineCrashTasks } from './define-crash-tasks.ts'
export { defineVerifyTasks, trialTest } from './define-verify-tasks.ts'
export { defineDiagnoseTasks, defineSessionVerifyTasks } from './session-tasks.ts'
export { CrashlabVerifyReporter, type VerifyReporterOptions } from './verify-reporter.ts'
