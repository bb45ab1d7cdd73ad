import type { JsonValue } from '../case/schema/json.ts'
import type { EntryPoint, Outcome, Run, RunStatus } from '../case/schema/run.ts'
import type { Severity, Step } from '../case/schema/step.ts'
import type { Redactor } from '../redact/types.ts'

/**
 * Where `openStore` keeps runs, and which config file it reads for `store.dir`.
 *
 * @example
 * const options: OpenStoreOptions = { dir: '/var/lib/my-agent/.crashlab' }
 */
export interface OpenStoreOptions {
  /** The store folder. Default: `$CRASHLAB_DIR`, else the config file's `store.dir`, else `.crashlab` beside the config file, else `<cwd>/.crashlab`. */
  dir?: string
  /** Where relative paths and the config file search start. Default `process.cwd()`. */
  cwd?: string
  /** The config file to read `store.dir` from: a path, or `false` for none. Default: the one `loadConfig` finds. */
  config?: string | false
  /** Read for `CRASHLAB_DIR` and `CRASHLAB_CONFIG`. Default `process.env`. */
  env?: NodeJS.ProcessEnv
}

/**
 * One stored run as the index knows it: enough to list, filter and pick runs without reading cassettes.
 *
 * @example
 * const s: StoredRunSummary = store.get('last')
 * console.log(s.id, s.status, s.steps, s.findings.critical, s.path)
 */
export interface StoredRunSummary {
  id: string
  name: string
  status: RunStatus
  outcome: Outcome
  startedAt: string
  endedAt: string | null
  steps: number
  llmCalls: number
  toolCalls: number
  /** Input plus output tokens of the run's model calls. */
  tokens: number
  costUsd: number | null
  /** How many findings of each severity the runtime checks left on the run. */
  findings: { info: number; warn: number; error: number; critical: number }
  maxSeverity: Severity | null
  /** Oracles (`run.checks`) that did not pass. */
  failedChecks: number
  /** The run's own tags and those added to it in the store (`tag`), sorted. */
  tags: string[]
  replayOf?: string
  forkedFrom?: string
  /**
   * The absolute path of the run's cassette: under the store's `runs/`, or, for a run of a test, the
   * test's own cassette.
   */
  path: string
  /** The test that ran it, for a run the Vitest plugin indexed (in the listed session, else the newest). */
  test?: StoredRunTest
}

/**
 * The test of an indexed Vitest session that ran a run.
 *
 * @example
 * const t: StoredRunTest = { session: '01JH…', sessionStartedAt: '2026-11-01T10:00:00.000Z', file: 'test/refund.test.ts', name: 'refund > clean', state: 'failed' }
 * console.log(`${t.file} > ${t.name}`)
 */
export interface StoredRunTest {
  /** The Vitest session's id (a ULID). */
  session: string
  sessionStartedAt: string
  /** The test file, relative to the Vitest root. */
  file: string
  /** The test's full name, `describe > test`. */
  name: string
  /** Vitest's verdict on the test: passed, failed, skipped. */
  state: string
}

/**
 * One test of a Vitest session, as the plugin hands it to `indexTestSession`.
 *
 * @example
 * const t: TestRunInput = { cassette: '/repo/test/__cassettes__/refund.test.ts/clean.cassette.json', file: 'test/refund.test.ts', name: 'refund > clean', state: 'passed' }
 */
export interface TestRunInput {
  /** The absolute path of the test's cassette. */
  cassette: string
  file: string
  name: string
  state: string
}

/**
 * The cells one crash test (`crashTest`) ran in a Vitest session over a test's cassette, as the plugin
 * hands them to `indexTestSession`. The store keeps them as given (their shape is the crash tests'
 * `CrashCellMeta`), with the session, for the run's HTML report.
 *
 * @example
 * const c: CrashCellsInput = { cassette: '/repo/__cassettes__/refund.test.ts/refund.cassette.json', test: 'refund', cells: [{ step: 0, fault: { kind: 'rate_limit' }, outcome: 'survived', detail: 'finished' }] }
 */
export interface CrashCellsInput {
  /** The absolute path of the cassette the cells replayed. */
  cassette: string
  /** The base case: the full name of the test that owns the cassette. */
  test: string
  cells: readonly unknown[]
}

/**
 * The crash-test cells the newest Vitest session that ran any kept for a run, one entry per crash test.
 *
 * @example
 * for (const { test, cells } of store.crashCellsOf(run.id)) console.log(test, cells.length)
 */
export interface StoredCrashCells {
  /** The base case's full name. */
  test: string
  cells: unknown[]
  /** When the session that ran them started (ISO). */
  sessionStartedAt: string
}

/**
 * A Vitest session: one run of the test suite (one `vitest run`, or one re-run in watch mode).
 *
 * @example
 * const session: TestSessionInput = { id: ulid(), startedAt: new Date().toISOString(), root: '/repo' }
 */
export interface TestSessionInput {
  id: string
  startedAt: string
  /** The Vitest root the test files are relative to. */
  root: string
}

/**
 * What `indexTestSession` did.
 *
 * @example
 * const { indexed, skipped, droppedSessions } = store.indexTestSession(session, tests)
 */
export interface IndexedSession {
  /** How many tests' runs were indexed. */
  indexed: number
  /** Cassettes that could not be read (named, with why), left out. */
  skipped: Array<{ cassette: string; reason: string }>
  /** How many older sessions were dropped from the index (their cassettes stay). */
  droppedSessions: number
}

/** How many Vitest sessions the index keeps by default. */
export const DEFAULT_KEEP_SESSIONS = 20

/**
 * What `list` keeps: every given condition must hold.
 *
 * @example
 * store.list({ flagged: true, tag: 'verify:01JH7Z', limit: 20 })
 */
export interface ListFilter {
  tag?: string
  /** Runs with a finding ≥ warn, a failed check, or status `error` / `incomplete`. */
  flagged?: boolean
  /** Runs with a finding of this severity or worse. */
  minSeverity?: Severity
  /** Runs of this agent (exact name). */
  name?: string
  /** The runs of the tests of one indexed Vitest session, by its id (see `sessions()`), in file and test order. */
  session?: string
  limit?: number
}

/**
 * How `save` stores a run: tags added to it, and the redaction rules its cassette is written through.
 *
 * @example
 * store.save(run, { tags: ['nightly'], redactor: createRedactor({ keys: ['x-tenant'] }) })
 */
export interface SaveOptions {
  tags?: string[]
  redactor?: Redactor
}

/**
 * The start of a journaled run: what the first line of its journal says.
 *
 * @example
 * store.startJournal({ id: newRunId(), name: 'refund-bot', input: 'Refund A17', startedAt: new Date().toISOString() })
 */
export interface JournalInit {
  id: string
  name: string
  input: JsonValue
  startedAt: string
  entryPoint?: EntryPoint | null
  /** The rules each step is redacted with before it is appended. Default: the default redactor. */
  redactor?: Redactor
}

/**
 * An append-only, fsync'd record of a run in flight: what survives when the process dies mid-run.
 *
 * @example
 * const journal = store.startJournal({ id: run.id, name: run.name, input: run.input, startedAt: run.startedAt })
 * for (const step of steps) journal.append(step)
 * journal.finish(run)
 */
export interface RunJournal {
  readonly id: string
  /** The journal file, `<dir>/journal/<id>.jsonl`. */
  readonly path: string
  /** Redacts the step, appends it as one line and fsyncs. Throws `E_WRITE_FAILED` when it cannot. */
  append(step: Step): void
  /** Saves the finished run (as `store.save`) and removes the journal. */
  finish(run: Run, options?: SaveOptions): StoredRunSummary
  /** Removes the journal without saving anything. */
  abandon(): void
}

/**
 * The local run store: an index (SQLite, `index.db`) plus one redacted cassette per run under `runs/`,
 * and one journal per run in flight under `journal/`. Safe for several processes at once.
 *
 * @example
 * const store = await openStore()
 * for (const s of store.list({ flagged: true, limit: 10 })) console.log(s.id, s.name, s.maxSeverity)
 * const run = store.load('last')
 * store.close()
 */
export interface RunStore {
  readonly dir: string
  /**
   * True when this process can only read the store (a read-only folder or mount): listing, showing and
   * loading work; `save`, `tag`, `untag` and `startJournal` throw `E_STORE_READ_ONLY`.
   */
  readonly readOnly?: boolean
  /** Writes the redacted cassette atomically and its index row; saving the same id again updates both. */
  save(run: Run, options?: SaveOptions): StoredRunSummary
  /**
   * The stored run: by id, unique id prefix, `last` (the newest), the path of a test's cassette, or a
   * test's full name (`describe > test` or `file > describe > test`; its run of the newest session).
   * Tags are the index's.
   */
  load(ref: string): Run
  /** The full id of a ref, as `load` takes it (`E_RUN_NOT_FOUND`, `E_RUN_AMBIGUOUS`). */
  resolve(ref: string): string
  get(ref: string): StoredRunSummary
  /** Stored runs, newest first (by `startedAt`, then id). */
  list(filter?: ListFilter): StoredRunSummary[]
  tag(ref: string, ...tags: string[]): void
  untag(ref: string, ...tags: string[]): void
  cassettePath(id: string): string
  startJournal(init: JournalInit): RunJournal
  /**
   * Indexes the runs of one Vitest session (the plugin's reporter does, after each test run): each
   * test's cassette becomes a row pointing at that file, tagged with the session, the test file and
   * name. Keeps the newest `keep` sessions (default 20); older sessions' entries are dropped, never
   * the cassettes.
   */
  indexTestSession(
    session: TestSessionInput,
    tests: readonly TestRunInput[],
    options?: { keep?: number; crashes?: readonly CrashCellsInput[] },
  ): IndexedSession
  /**
   * The crash-test cells (`crashTest`) of the newest indexed Vitest session that ran any over the run's
   * cassette (`indexTestSession`'s `crashes`); empty when none did.
   */
  crashCellsOf(ref: string): StoredCrashCells[]
  /** The indexed Vitest sessions, newest first, with how many runs each has. */
  sessions(): Array<{ id: string; startedAt: string; runs: number }>
  /** Saves the journals of dead processes as incomplete runs; returns how many. */
  finalizeJournals(): number
  close(): void
}
