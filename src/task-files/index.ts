/**
 * Verification, crash tests and the session's diagnose, fix and verify as Vitest tasks, seen from
 * outside Vitest: the plans and task files `crashlab verify --vitest`, `crashlab crash-test --vitest` and
 * `crashlab diagnose --vitest` write and run.
 * The tasks themselves and their reporter are on the Vitest side, in `crashlab/tasks` (plugin/tasks).
 */
export {
  CRASH_PLAN_ENV,
  type CrashPlanFile,
  type CrashTaskMeta,
  crashCellsOfSlot,
  readCrashPlanFile,
} from './crash-plan-file.ts'
export {
  type CrashTasksOptions,
  type CrashTasksPlan,
  type CrashTasksResult,
  runCrashTasks,
} from './run-crash-tasks.ts'
export { runSessionTasks, type SessionTasksOptions } from './run-session-tasks.ts'
export {
  DEFAULT_SLOTS,
  runVerifyTasks,
  type VerifyTasksOptions,
  type VerifyTasksResult,
} from './run-verify-tasks.ts'
export { type ProvidedTasksConfig, selectFailedRuns } from './select-runs.ts'
export { sessionTag } from './session-tag.ts'
export { slotOf, TASK_FILE_SUFFIX, tasksVitestArgs, writeTaskFiles, writeTasksConfig } from './task-files.ts'
export {
  readVerifyPlanFile,
  type TrialMeta,
  trialsOfSlot,
  VERIFY_PLAN_ENV,
  type VerifyPlanFile,
} from './verify-plan-file.ts'
