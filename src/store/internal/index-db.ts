import { dirname } from 'node:path'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import { pathToFileURL } from 'node:url'
import { CrashlabError } from '../../errors.ts'
import type { ListFilter } from '../types.ts'
import { type IndexRow, ROW_COLUMNS, SEVERITY_RANK } from './index-row.ts'
import { sqlite } from './load-sqlite.ts'
import {
  accessError,
  busyError,
  corruptError,
  isCorruption,
  isSqliteAccess,
  isSqliteBusy,
  isSqliteError,
  isSqliteFull,
  isSqliteReadOnly,
  readOnlyError,
} from './store-errors.ts'
import { TEST_OF, TEST_SCHEMA, TestSessionsDb } from './test-sessions-db.ts'

/**
 * The index format this crashlab writes (`PRAGMA user_version`). Version 2 added the tables of the
 * Vitest sessions (`test_sessions`, `test_runs`), version 3 the crash-test cells a session ran
 * (`crash_cells`); an older index is upgraded in place when opened for writing, and read as one without
 * those tables when it cannot be written.
 */
export const INDEX_VERSION = 3
/** The oldest index format this crashlab reads (and upgrades). */
export const OLDEST_INDEX_VERSION = 1
/**
 * `PRAGMA application_id` of crashlab's index ("CRLB"), so that a file can be told apart from another
 * program's SQLite database. Indexes written before it was set have 0 and are recognized by their tables.
 */
export const INDEX_APPLICATION_ID = 0x43524c42
/** How long a writer waits for another process's transaction before giving up. */
const BUSY_TIMEOUT_MS = 10_000

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL, outcome TEXT NOT NULL,
  started_at TEXT NOT NULL, ended_at TEXT, steps INTEGER NOT NULL, llm_calls INTEGER NOT NULL,
  tool_calls INTEGER NOT NULL, tokens INTEGER NOT NULL, cost_usd REAL, f_info INTEGER NOT NULL,
  f_warn INTEGER NOT NULL, f_error INTEGER NOT NULL, f_critical INTEGER NOT NULL,
  max_severity INTEGER NOT NULL, failed_checks INTEGER NOT NULL, replay_of TEXT, forked_from TEXT,
  path TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS runs_newest ON runs (started_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS runs_by_name ON runs (name, started_at DESC);
CREATE INDEX IF NOT EXISTS runs_by_replay ON runs (replay_of) WHERE replay_of IS NOT NULL;
CREATE INDEX IF NOT EXISTS runs_by_fork ON runs (forked_from) WHERE forked_from IS NOT NULL;
CREATE TABLE IF NOT EXISTS tags (
  run_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tags_by_tag ON tags (tag, run_id);
${TEST_SCHEMA}`
const TAGS_OF = '(SELECT json_group_array(tag) FROM tags WHERE tags.run_id = runs.id) AS tags_json'
/** A row with its tags as SQLite's JSON array text, and the test that ran it as JSON text. */
export type RowWithTags = IndexRow & { tags_json: string | null; test_json?: string | null }

/**
 * The SQLite index of a store, `<dir>/index.db`, in WAL mode: readers never wait for a writer, and
 * writers in several processes queue on SQLite's own lock (busy timeout 10 s). Every write is one
 * short `BEGIN IMMEDIATE` transaction. An unreadable file is `E_STORE_CORRUPT`.
 *
 * @example
 * const index = new IndexDb('/repo/.crashlab/index.db')
 * index.upsert(rowOf(run, 'runs/….cassette.json'), run.tags)
 */
export class IndexDb {
  readonly path: string
  /** Opened for reading only (a read-only store): every write is `E_STORE_READ_ONLY`. */
  readonly readOnly: boolean
  private readonly db: DatabaseSync
  /** False for a read-only index of version 1, which has no session tables (nothing to list then). */
  private hasTests = true
  /** False for a read-only index older than version 3, which has no crash cells. */
  private hasCrashCells = true
  private readonly statements = new Map<string, StatementSync>()
  /** The tables of the Vitest sessions the plugin indexed. */
  readonly tests: TestSessionsDb

  /** `path` may be `:memory:`: the index of a read-only store whose own index cannot be used. */
  constructor(path: string, options: { readOnly?: boolean } = {}) {
    this.path = path
    this.readOnly = options.readOnly === true
    this.tests = new TestSessionsDb({
      statement: (sql) => this.statement(sql),
      write: (fn) => this.write(fn),
      guard: (fn) => this.guard(fn),
      hasTests: () => this.hasTests,
      hasCrashCells: () => this.hasCrashCells,
      insertTags: (id, tags) => this.insertTags(id, tags),
    })
    this.db = this.guard(() => (this.readOnly ? openReadOnly(path) : new (sqlite().DatabaseSync)(path)))
    // Switching a new file to WAL takes a lock that SQLite may refuse at once (without waiting) while
    // another process is creating the same store: try again a few times before giving up.
    for (let attempt = 1; ; attempt++) {
      try {
        this.guard(() => this.init())
        return
      } catch (error) {
        if (attempt >= 5 || (error as { code?: string }).code !== 'E_WRITE_FAILED') {
          this.db.close()
          throw error
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 * attempt)
      }
    }
  }

  private init(): void {
    this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    const version = Number(
      (this.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
    )
    if (version > INDEX_VERSION) {
      throw corruptError(
        this.path,
        `it was written by a newer crashlab (index version ${version})`,
        undefined,
        true,
      )
    }
    if (this.readOnly) {
      const has = (table: string) =>
        this.db.prepare('SELECT 1 AS one FROM sqlite_schema WHERE name = ?').get(table) !== undefined
      this.hasTests = has('test_runs')
      this.hasCrashCells = has('crash_cells')
      return
    }
    const mode = (this.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode
    if (mode !== 'wal') this.db.exec('PRAGMA journal_mode = WAL')
    // FULL: a commit is on disk when save() returns, like the cassette it points at.
    this.db.exec('PRAGMA synchronous = FULL')
    if (version === INDEX_VERSION) return
    this.write(() => {
      this.db.exec(SCHEMA)
      this.db.exec(`PRAGMA application_id = ${INDEX_APPLICATION_ID}`)
      this.db.exec(`PRAGMA user_version = ${INDEX_VERSION}`)
    })
  }

  /** Inserts or replaces the run's row and adds its tags (tags already there stay). */
  upsert(row: IndexRow, tags: readonly string[]): void {
    this.upsertMany([{ row, tags }])
  }

  /** `upsert` of several runs in one transaction. */
  upsertMany(entries: ReadonlyArray<{ row: IndexRow; tags: readonly string[] }>): void {
    const columns = ROW_COLUMNS.join(', ')
    const values = ROW_COLUMNS.map((c) => `:${c}`).join(', ')
    const insert = this.statement(`INSERT OR REPLACE INTO runs (${columns}) VALUES (${values})`)
    this.write(() => {
      for (const { row, tags } of entries) {
        insert.run({ ...row })
        this.insertTags(row.id, tags)
      }
    })
  }

  /** Adds tags to a run; false when the run is not in the index. */
  addTags(id: string, tags: readonly string[]): boolean {
    return this.write(() => {
      if (!this.has(id)) return false
      this.insertTags(id, tags)
      return true
    })
  }

  removeTags(id: string, tags: readonly string[]): void {
    const remove = this.statement('DELETE FROM tags WHERE run_id = ? AND tag = ?')
    this.write(() => {
      for (const tag of tags) remove.run(id, tag)
    })
  }

  /** Ids of the rows whose cassette is at `path` (as the row holds it). */
  idsAtPath(path: string): string[] {
    const rows = this.guard(() => this.statement('SELECT id FROM runs WHERE path = ?').all(path))
    return rows.map((r) => String((r as { id: string }).id))
  }

  has(id: string): boolean {
    return this.guard(() => this.statement('SELECT 1 AS one FROM runs WHERE id = ?').get(id) !== undefined)
  }

  /** Up to `limit` ids that start with `prefix` (upper-case ULID characters), in id order. */
  idsWithPrefix(prefix: string, limit: number): string[] {
    const rows = this.guard(() =>
      this.statement('SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT ?').all(
        prefix,
        `${prefix}\u{10ffff}`,
        limit,
      ),
    )
    return rows.map((r) => String((r as { id: string }).id))
  }

  newest(): string | undefined {
    const row = this.guard(() =>
      this.statement('SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1').get(),
    ) as { id: string } | undefined
    return row?.id
  }

  get(id: string): RowWithTags | undefined {
    const testOf = this.hasTests ? `, ${TEST_OF(false)}` : ''
    return this.guard(() => this.statement(`SELECT *, ${TAGS_OF}${testOf} FROM runs WHERE id = ?`).get(id)) as
      | RowWithTags
      | undefined
  }

  list(filter: ListFilter): RowWithTags[] {
    const where: string[] = []
    const params: Record<string, string | number> = {}
    if (filter.tag !== undefined) {
      where.push('EXISTS (SELECT 1 FROM tags WHERE tags.run_id = runs.id AND tags.tag = :tag)')
      params.tag = filter.tag
    }
    const inSession = filter.session !== undefined
    if (inSession) {
      if (!this.hasTests) return []
      where.push(
        'EXISTS (SELECT 1 FROM test_runs WHERE test_runs.run_id = runs.id AND test_runs.session_id = :session)',
      )
      params.session = filter.session as string
    }
    if (filter.name !== undefined) {
      where.push('name = :name')
      params.name = filter.name
    }
    if (filter.minSeverity !== undefined) {
      where.push('max_severity >= :severity')
      params.severity = SEVERITY_RANK[filter.minSeverity]
    }
    if (filter.flagged === true) {
      where.push(
        "(f_warn + f_error + f_critical > 0 OR failed_checks > 0 OR status IN ('error', 'incomplete'))",
      )
    } else if (filter.flagged === false) {
      where.push("(f_warn + f_error + f_critical = 0 AND failed_checks = 0 AND status = 'ok')")
    }
    const limit = filter.limit !== undefined && filter.limit >= 0 ? ' LIMIT :limit' : ''
    if (limit) params.limit = Math.floor(filter.limit as number)
    const testOf = this.hasTests ? `, ${TEST_OF(inSession)}` : ''
    // A session lists its tests in file and name order (the order a reader looks them up in); the rest newest first.
    const order = inSession
      ? `(SELECT file || char(0) || test FROM test_runs WHERE test_runs.run_id = runs.id AND test_runs.session_id = :session), id`
      : 'started_at DESC, id DESC'
    const sql =
      `SELECT *, ${TAGS_OF}${testOf} FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
      ` ORDER BY ${order}${limit}`
    return this.guard(() => this.statement(sql).all(params)) as unknown as RowWithTags[]
  }

  count(): number {
    return this.guard(() =>
      Number((this.statement('SELECT count(*) AS n FROM runs').get() as { n: number }).n),
    )
  }

  close(): void {
    if (this.db.isOpen) this.db.close()
  }

  private insertTags(id: string, tags: readonly string[]): void {
    const add = this.statement('INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?, ?)')
    for (const tag of new Set(tags)) add.run(id, tag)
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql)
    if (!statement) {
      statement = this.guard(() => this.db.prepare(sql))
      this.statements.set(sql, statement)
    }
    return statement
  }

  /** Runs `fn` in one `BEGIN IMMEDIATE` transaction: the write lock first, so no upgrade can deadlock. */
  private write<T>(fn: () => T): T {
    if (this.readOnly) throw readOnlyError(dirname(this.path), 'write the run index')
    return this.guard(() => {
      this.db.exec('BEGIN IMMEDIATE')
      try {
        const result = fn()
        this.db.exec('COMMIT')
        return result
      } catch (error) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK')
        throw error
      }
    })
  }

  /** Turns every SQLite error into crashlab's, naming the file: none reaches a user untyped. */
  private guard<T>(fn: () => T): T {
    try {
      return fn()
    } catch (error) {
      const message = (error as Error).message
      if (isCorruption(error)) throw corruptError(this.path, message, error)
      if (isSqliteBusy(error)) throw busyError(this.path, BUSY_TIMEOUT_MS, error)
      if (isSqliteReadOnly(error)) throw readOnlyError(dirname(this.path), 'write the run index', error)
      if (isSqliteFull(error)) {
        throw new CrashlabError(
          'E_WRITE_FAILED',
          `the run index ${this.path} could not be written: the disk is full. Nothing was changed; free some space and try again.`,
          { cause: error, subject: this.path },
        )
      }
      if (isSqliteAccess(error))
        throw accessError(dirname(this.path), `its index ${this.path} cannot be opened (${message})`, error)
      if (isSqliteError(error)) throw corruptError(this.path, message, error)
      throw error
    }
  }
}

/**
 * A read-only connection (also how an existing file is first looked at: nothing is written to a file
 * before it is known to be crashlab's index). SQLite needs the `-shm` file of a WAL database, which a read-only folder
 * cannot get once the last writer removed it: the file is then opened as immutable (no locks, no WAL),
 * which is right for a store nobody can write.
 */
export function openReadOnly(path: string): DatabaseSync {
  const { DatabaseSync } = sqlite()
  let db: DatabaseSync | undefined
  try {
    db = new DatabaseSync(path, { readOnly: true })
    db.prepare('SELECT count(*) AS n FROM sqlite_schema').get()
    return db
  } catch (error) {
    if (db?.isOpen) db.close()
    if (!isSqliteReadOnly(error) && !isSqliteAccess(error)) throw error
  }
  return new DatabaseSync(`${pathToFileURL(path).href}?immutable=1`, { readOnly: true })
}
