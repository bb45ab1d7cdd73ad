/**
 * What the Vitest side (`plugin/`, `fixtures/`, `matchers/`) loads with `import()` when it first needs
 * it, rather than in every worker: the run store, the HTML report, re-runs, patches, forks and crash tests. Like
 * `src/internal.ts`, not a public entry. Each name is imported from the file that defines it, never
 * through a component's index: the bundle gives what a module imports with `import()` files of its own
 * only when nothing loaded at start-up imports it too (docs/architecture.md, "Start-up").
 */

export {
  type CrashVariantContext,
  crashEntryOf,
  prepareCrashVariants,
  runCrashVariant,
} from './crash/crash-variant.ts'
export {
  ALL_MCP_FAULTS,
  ALL_MODEL_FAULTS,
  ALL_TOOL_FAULTS,
  type Fault,
  faultLabel,
  parseFault,
} from './crash/faults.ts'
export { type CrashCell, crashCells, faultInjection } from './crash/inject.ts'
export { type CrashCellResult, type CrashOutcome, judgeVariant, type SurviveFn } from './crash/judge.ts'
export { renderCrashMatrix } from './crash/render-matrix.ts'
export { forkRequestHook } from './fork/fork.ts'
export { parsePatch } from './patches/parse-patch.ts'
export { htmlReportAttachment } from './report/html-report-attachment.ts'
export { replayRun } from './rerun/replay-run.ts'
export { replayWithPatch } from './rerun/replay-with-patch.ts'
export { openStore } from './store/open-store.ts'
export { resolveStoreDir } from './store/store-dir.ts'
export { summarizeVerification } from './verify/verify.ts'
