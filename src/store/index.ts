/**
 * The local run store: an SQLite index plus one redacted cassette per run, journals of runs in flight
 * finalized as incomplete runs when their process died. Production capture (`record`, `capture`) writes
 * to it; the CLI (`crashlab ls`, `show`, `tag`) reads it.
 */
export { load } from './load-run.ts'
export { openRunIndex, type RunIndexReader } from './open-run-index.ts'
export { openStore, resolveStoreDir } from './open-store.ts'
export { LocalRunStore } from './run-store.ts'
export type {
  CrashCellsInput,
  IndexedSession,
  JournalInit,
  ListFilter,
  OpenStoreOptions,
  RunJournal,
  RunStore,
  SaveOptions,
  StoredCrashCells,
  StoredRunSummary,
  StoredRunTest,
  TestRunInput,
  TestSessionInput,
} from './types.ts'
export { DEFAULT_KEEP_SESSIONS } from './types.ts'
