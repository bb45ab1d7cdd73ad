/**
 * Replaying a stored run: `replayRun(run)` starts the run's entry point again (an importable function
 * through Vite's module runner, or an `agentCase` test through Vitest) offline against its own
 * recording, and stores the replay with `links.replayOf`; `replayWithPatch(fork, { patch, atStep })`
 * replays a patched fork with its patch re-applied; `exportTest(run, { dir, fix? })` writes a Vitest
 * regression test and its cassette for a run (and for the passing fork of a verified fix).
 */
export {
  EXPORTED_SUITE,
  EXPORTED_TEST_SUFFIX,
  type ExportedTest,
  type ExportTestOptions,
  exportTest,
} from './export-test.ts'
export { EXPORTED_TAG } from './exported-tag.ts'
export { rerunEntry } from './internal/rerun-entry.ts'
export {
  noEntryPointError,
  type ReplayResult,
  type ReplayRunOptions,
  replayRun,
  /** `replay(run)`: the CLI's `crashlab replay`, as a function (the same as `replayRun`). */
  replayRun as replay,
} from './replay-run.ts'
export { crashCellsFileOf, networkFileOf, REPLAY_ENV, type TestCrashCell } from './replay-test.ts'
export { type ReplayWithPatchOptions, replayWithPatch } from './replay-with-patch.ts'
