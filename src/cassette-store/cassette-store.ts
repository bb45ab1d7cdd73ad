import type { AgentCase, Cassette, LoadCassetteOptions, Run, WriteCassetteOptions } from '../case/index.ts'

/**
 * What a test file's folder holds, as the store lists it: a cassette (with its sidecar folder, which
 * goes with it) or a `toMatchAgentCase` baseline.
 *
 * @example
 * const entry: StoredEntry = { kind: 'baseline', path: '/repo/__cassettes__/a.test.ts/refund.agentcase', name: 'refund.agentcase' }
 */
export interface StoredEntry {
  kind: 'cassette' | 'baseline'
  /** Where the entry is, as the store names it (an absolute path for the file-system store). */
  path: string
  /** The file name inside the test file's folder. */
  name: string
}

/**
 * Where and how a test's recorded files are kept: its cassette, the cassette's sidecar files (binary
 * bodies) and its `toMatchAgentCase` baselines. The counterpart of Vitest's `SnapshotEnvironment` for
 * snapshots: the plugin's setup file, the baseline matcher and the reporter go through a store instead
 * of touching files themselves, so the path rules (the plugin's `cassetteDir` included) have one owner.
 *
 * Unlike `SnapshotEnvironment` every method is synchronous: a matcher's result is synchronous, and a
 * test reads its cassette before it starts, with a stack that points at the test.
 *
 * Writes are all-or-nothing: a write that fails (an invalid run, a full disk) leaves what was there, and
 * everything written is redacted first (cassettes by `writeCassette`'s rules, baselines by
 * `writeAgentCase`'s).
 *
 * @example
 * const store = fileCassetteStore({ cassetteDir: 'recordings' })
 * const path = store.cassettePath('/repo/test/refund.test.ts', 'refund > clean')
 * if (!store.exists(path)) store.writeCassette(path, run)
 */
export interface CassetteStore {
  /** The folder that holds every cassette and baseline of one test file. */
  folderOf(testFile: string): string
  /** Where a test's cassette lives. */
  cassettePath(testFile: string, fullName: string): string
  /** Where a test's baseline lives (`name`: a test that keeps several). */
  baselinePath(testFile: string, fullName: string, name?: string): string
  /** Whether an entry (a cassette or a baseline) is stored at `path`. */
  exists(path: string): boolean
  /** The stored text at `path`, or undefined when there is none (as `readSnapshotFile` returns null). */
  readText(path: string): string | undefined
  /** Reads and validates the cassette at `path` (and its sidecar files); a missing one is `E_CASSETTE_NOT_FOUND`. */
  readCassette(path: string, options?: LoadCassetteOptions): Cassette
  /** Redacts, validates and writes `run` as the cassette at `path`, all or nothing; returns it as written. */
  writeCassette(path: string, run: Run, options?: WriteCassetteOptions): Cassette
  /** Reads and validates the baseline at `path`. */
  readBaseline(path: string): AgentCase
  /** Redacts, validates and writes the baseline at `path`, all or nothing; returns it as written. */
  writeBaseline(path: string, c: AgentCase): AgentCase
  /** Removes the entry at `path`: a cassette with its sidecar files, or a baseline. Nothing stored is fine. */
  remove(path: string): void
  /** The cassettes and baselines of one test file, sorted by name. */
  list(testFile: string): StoredEntry[]
}
