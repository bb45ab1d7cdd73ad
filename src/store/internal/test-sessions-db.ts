import type { StatementSync } from 'node:sqlite'
import { type IndexRow, ROW_COLUMNS } from './index-row.ts'

/**
 * The Vitest sessions the plugin indexed, which test ran which run in each, and the cells of the crash
 * tests (`crashTest`) each session ran over a run's cassette.
 */
export const TEST_SCHEMA = `
CREATE TABLE IF NOT EXISTS test_sessions (
  id TEXT PRIMARY KEY, started_at TEXT NOT NULL, root TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS test_runs (
  session_id TEXT NOT NULL, run_id TEXT NOT NULL, file TEXT NOT NULL, test TEXT NOT NULL,
  state TEXT NOT NULL, PRIMARY KEY (session_id, run_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS crash_cells (
  session_id TEXT NOT NULL, run_id TEXT NOT NULL, test TEXT NOT NULL, cells_json TEXT NOT NULL,
  PRIMARY KEY (session_id, run_id, test)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS crash_cells_by_run ON crash_cells (run_id);
CREATE INDEX IF NOT EXISTS test_runs_by_run ON test_runs (run_id);
CREATE INDEX IF NOT EXISTS test_runs_by_test ON test_runs (test);
CREATE INDEX IF NOT EXISTS runs_by_path ON runs (path);
`

/** The test that ran a run: in the given session (`:session`), else in the newest session that has it. */
export const TEST_OF = (inSession: boolean) =>
  `(SELECT json_object('session', t.session_id, 'sessionStartedAt', s.started_at, 'file', t.file, 'name', t.test, 'state', t.state)
    FROM test_runs t JOIN test_sessions s ON s.id = t.session_id
    WHERE t.run_id = runs.id${inSession ? ' AND t.session_id = :session' : ''}
    ORDER BY s.started_at DESC, s.id DESC LIMIT 1) AS test_json`
/** Rows the plugin indexed point at a test's own cassette (an absolute path), not at one under `runs/`. */
const TEST_OWNED = "path NOT LIKE 'runs/%'"

/** One test of a Vitest session, as `indexTests` stores it. */
export interface TestEntry {
  row: IndexRow
  tags: readonly string[]
  /** The test file, relative to the Vitest root. */
  file: string
  /** The test's full name (`describe > test`). */
  test: string
  /** Vitest's verdict: passed, failed, skipped. */
  state: string
}

/** The cells one crash test (`crashTest`) of a session ran over one run's cassette. */
export interface CrashCellsEntry {
  runId: string
  /** The crash test's base case: the full name of the test whose cassette the cells replay. */
  test: string
  cells: readonly unknown[]
}

/** A test known to the index: its newest run. */
export interface IndexedTest {
  runId: string
  file: string
  test: string
}

/** What the session tables need of the index: its statements, transactions and error mapping. */
export interface IndexAccess {
  statement(sql: string): StatementSync
  write<T>(fn: () => T): T
  guard<T>(fn: () => T): T
  /** False for a read-only index of version 1, which has no session tables. */
  hasTests(): boolean
  /** False for a read-only index older than version 3, which has no crash cells. */
  hasCrashCells(): boolean
  insertTags(id: string, tags: readonly string[]): void
}

/**
 * The tables of the Vitest sessions in a store's index: `test_sessions` (one row per Vitest run the
 * plugin indexed) and `test_runs` (which test of which file ran which run in it). A test's run is a row
 * of `runs` whose path is the test's own cassette; the index never copies or deletes that file.
 *
 * @example
 * index.tests.indexTests({ id, startedAt, root }, [{ row, tags: [], file: 'a.test.ts', test: 'smoke', state: 'passed' }], 20)
 */
export class TestSessionsDb {
  private readonly db: IndexAccess

  constructor(db: IndexAccess) {
    this.db = db
  }

  /**
   * Indexes the tests of one Vitest session in one transaction, then drops the sessions past the newest
   * `keep` and the rows of test cassettes no kept session refers to. A row of the store's own (`runs/…`)
   * with the same id is kept as it is. A test cassette recorded again under a new id replaces the old
   * id's row: the file no longer holds that run. The session's crash-test cells (`crashes`) are kept
   * with it, and dropped with it. Returns how many sessions were dropped.
   */
  indexTests(
    session: { id: string; startedAt: string; root: string },
    entries: readonly TestEntry[],
    keep: number,
    crashes: readonly CrashCellsEntry[] = [],
  ): number {
    const columns = ROW_COLUMNS.join(', ')
    const values = ROW_COLUMNS.map((c) => `:${c}`).join(', ')
    const insert = this.db.statement(`INSERT OR REPLACE INTO runs (${columns}) VALUES (${values})`)
    const pathOf = this.db.statement('SELECT path FROM runs WHERE id = ?')
    const replaced = this.db.statement('SELECT id FROM runs WHERE path = ? AND id != ?')
    const addTest = this.db.statement(
      'INSERT OR REPLACE INTO test_runs (session_id, run_id, file, test, state) VALUES (?, ?, ?, ?, ?)',
    )
    return this.db.write(() => {
      this.db
        .statement('INSERT OR REPLACE INTO test_sessions (id, started_at, root) VALUES (?, ?, ?)')
        .run(session.id, session.startedAt, session.root)
      for (const entry of entries) {
        const { row } = entry
        for (const old of replaced.all(row.path, row.id)) this.dropRun(String((old as { id: string }).id))
        const existing = pathOf.get(row.id) as { path: string } | undefined
        if (!existing?.path.startsWith('runs/')) {
          insert.run({ ...row })
          this.db.insertTags(row.id, entry.tags)
        }
        addTest.run(session.id, row.id, entry.file, entry.test, entry.state)
      }
      const addCells = this.db.statement(
        'INSERT OR REPLACE INTO crash_cells (session_id, run_id, test, cells_json) VALUES (?, ?, ?, ?)',
      )
      for (const crash of crashes)
        addCells.run(session.id, crash.runId, crash.test, JSON.stringify(crash.cells))
      return this.prune(keep)
    })
  }

  /** The newest indexed Vitest session, or undefined. */
  newestSession(): string | undefined {
    if (!this.db.hasTests()) return undefined
    const row = this.db.guard(() =>
      this.db.statement('SELECT id FROM test_sessions ORDER BY started_at DESC, id DESC LIMIT 1').get(),
    ) as { id: string } | undefined
    return row?.id
  }

  /** The ids of the indexed sessions, newest first. */
  sessions(): Array<{ id: string; startedAt: string; runs: number }> {
    if (!this.db.hasTests()) return []
    const rows = this.db.guard(() =>
      this.db
        .statement(
          'SELECT s.id AS id, s.started_at AS startedAt, (SELECT count(*) FROM test_runs t WHERE t.session_id = s.id) AS runs FROM test_sessions s ORDER BY s.started_at DESC, s.id DESC',
        )
        .all(),
    ) as Array<{ id: string; startedAt: string; runs: number }>
    return rows.map((r) => ({ id: String(r.id), startedAt: String(r.startedAt), runs: Number(r.runs) }))
  }

  /**
   * The tests whose full name ends `ref` (`describe > test`, or `file > describe > test`), each with
   * the run of the newest session that ran it. The caller decides which of them `ref` names.
   */
  testsEnding(ref: string): IndexedTest[] {
    if (!this.db.hasTests()) return []
    const rows = this.db.guard(() =>
      this.db
        .statement(
          `SELECT t.run_id AS runId, t.file AS file, t.test AS test FROM test_runs t
         JOIN test_sessions s ON s.id = t.session_id
         WHERE length(t.test) <= length(:ref) AND substr(:ref, length(:ref) - length(t.test) + 1) = t.test
         ORDER BY s.started_at DESC, s.id DESC`,
        )
        .all({ ref }),
    ) as unknown as IndexedTest[]
    const newest = new Map<string, IndexedTest>()
    for (const r of rows) {
      const key = `${r.file}\u0000${r.test}`
      if (!newest.has(key))
        newest.set(key, { runId: String(r.runId), file: String(r.file), test: String(r.test) })
    }
    return [...newest.values()]
  }

  /**
   * The crash-test cells of the newest session that ran any over the run's cassette: one entry per
   * crash test, with the session's start. Empty when no kept session did.
   */
  crashCellsOf(runId: string): Array<CrashCellsEntry & { sessionStartedAt: string }> {
    if (!this.db.hasCrashCells()) return []
    const rows = this.db.guard(() =>
      this.db
        .statement(
          `SELECT c.session_id AS session, s.started_at AS startedAt, c.test AS test, c.cells_json AS cells
         FROM crash_cells c JOIN test_sessions s ON s.id = c.session_id
         WHERE c.run_id = ? ORDER BY s.started_at DESC, s.id DESC, c.test`,
        )
        .all(runId),
    ) as Array<{ session: string; startedAt: string; test: string; cells: string }>
    const newest = rows[0]?.session
    return rows
      .filter((r) => r.session === newest)
      .map((r) => ({
        runId,
        test: String(r.test),
        cells: JSON.parse(String(r.cells)) as unknown[],
        sessionStartedAt: String(r.startedAt),
      }))
  }

  /** Removes a row of a test cassette, its tags and its session entries (never the file). */
  private dropRun(id: string): void {
    this.db.statement('DELETE FROM runs WHERE id = ?').run(id)
    this.db.statement('DELETE FROM tags WHERE run_id = ?').run(id)
    this.db.statement('DELETE FROM test_runs WHERE run_id = ?').run(id)
  }

  /** Drops the sessions past the newest `keep`, and the test rows no session refers to any more. */
  private prune(keep: number): number {
    const old = this.db
      .statement('SELECT id FROM test_sessions ORDER BY started_at DESC, id DESC LIMIT -1 OFFSET ?')
      .all(Math.max(0, Math.floor(keep)))
    for (const row of old) {
      const id = String((row as { id: string }).id)
      this.db.statement('DELETE FROM test_runs WHERE session_id = ?').run(id)
      this.db.statement('DELETE FROM crash_cells WHERE session_id = ?').run(id)
      this.db.statement('DELETE FROM test_sessions WHERE id = ?').run(id)
    }
    if (old.length === 0) return 0
    const orphans = this.db
      .statement(
        `SELECT id FROM runs WHERE ${TEST_OWNED} AND NOT EXISTS (SELECT 1 FROM test_runs WHERE test_runs.run_id = runs.id)`,
      )
      .all()
    for (const row of orphans) this.dropRun(String((row as { id: string }).id))
    return old.length
  }
}
