import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import { type Run, RunIdSchema } from '../case/schema/run.ts'
import { CrashlabError } from '../errors.ts'
import { finalizeJournals } from './internal/finalize-journals.ts'
import type { IndexDb } from './internal/index-db.ts'
import { rowOf, summaryOf } from './internal/index-row.ts'
import { JournalFile } from './internal/journal-file.ts'
import { listRuns } from './internal/list-runs.ts'
import { openIndex } from './internal/open-index.ts'
import {
  ambiguousError,
  ambiguousTestError,
  notFoundError,
  readOnlyError,
  unindexedCassetteError,
} from './internal/store-errors.ts'
import { cassetteKey, matchTestRef } from './internal/test-refs.ts'
import {
  type CrashCellsInput,
  DEFAULT_KEEP_SESSIONS,
  type IndexedSession,
  type JournalInit,
  type ListFilter,
  type RunJournal,
  type RunStore,
  type SaveOptions,
  type StoredCrashCells,
  type StoredRunSummary,
  type TestRunInput,
  type TestSessionInput,
} from './types.ts'

const ULID_PREFIX = /^[0-9A-HJKMNP-TV-Z]{1,26}$/
/** How many candidates an ambiguous prefix lists. */
const CANDIDATES = 10

/**
 * The store in a folder: `index.db` (SQLite, WAL), `runs/<id>.cassette.json` (one redacted cassette
 * per run, with its `.files/` sidecars), `journal/<id>.jsonl` (runs in flight). Opening it creates the
 * folder and, when `index.db` is missing, empty or another program's database, (re)builds the index
 * from the cassettes. A store this process cannot write is opened read-only (`readOnly`): reading works,
 * every write is `E_STORE_READ_ONLY`. `openStore()` is the usual way in: it also finds the folder and
 * finalizes the journals of dead processes.
 *
 * @example
 * const store = new LocalRunStore('/repo/.crashlab')
 * store.save(run, { tags: ['nightly'] })
 * store.load('last').id === run.id
 */
export class LocalRunStore implements RunStore {
  readonly dir: string
  readonly readOnly: boolean
  private readonly index: IndexDb

  constructor(dir: string) {
    this.dir = dir
    const opened = openIndex(dir)
    this.index = opened.index
    this.readOnly = opened.readOnly
  }

  save(run: Run, options: SaveOptions = {}): StoredRunSummary {
    if (this.readOnly) throw readOnlyError(this.dir, `save run ${run?.id}`)
    const tags = [...new Set([...(Array.isArray(run.tags) ? run.tags : []), ...(options.tags ?? [])])]
    const toWrite = tags.length === run.tags?.length ? run : { ...run, tags }
    const written = writeCassette(this.cassettePath(run.id), toWrite, { redactor: options.redactor })
    this.index.upsert(rowOf(written.run, relativeCassette(run.id)), written.run.tags)
    return this.get(run.id)
  }

  load(ref: string): Run {
    const summary = this.get(ref)
    const { run } = loadCassette(summary.path)
    if (run.id !== summary.id) {
      // A test's cassette recorded again outside an indexed run: the file holds another run now.
      throw new CrashlabError(
        'E_RUN_NOT_FOUND',
        `run ${summary.id} is gone: its cassette ${summary.path} now holds run ${run.id} (recorded again). ` +
          `Use \`${run.id}\` or the cassette's path, or see \`crashlab ls --session last\`.`,
        { subject: ref },
      )
    }
    // Tags live in the index: those added after the run was saved are part of it too.
    return { ...run, tags: summary.tags }
  }

  resolve(ref: string): string {
    const wanted = typeof ref === 'string' ? ref.trim() : ''
    if (wanted === 'last') {
      const id = this.index.newest()
      if (!id) throw notFoundError('last', this.dir)
      return id
    }
    const prefix = wanted.toUpperCase()
    if (ULID_PREFIX.test(prefix)) {
      if (prefix.length === 26 && this.index.has(prefix)) return prefix
      const ids = this.index.idsWithPrefix(prefix, CANDIDATES + 1)
      if (ids.length === 1) return ids[0] as string
      if (ids.length > 1)
        throw ambiguousError(wanted, this.dir, ids.slice(0, CANDIDATES), ids.length > CANDIDATES)
    }
    // Not a run id: the path of a test's cassette, or a test's full name (what a test's output shows).
    const match = wanted === '' ? undefined : matchTestRef(this.index, wanted, process.cwd())
    if (match?.kind === 'id') return match.id
    if (match?.kind === 'ambiguous') throw ambiguousTestError(wanted, this.dir, match.tests)
    if (match?.kind === 'unindexed-cassette') throw unindexedCassetteError(match.path, this.dir, match.id)
    if (match?.kind === 'no-file')
      throw notFoundError(wanted, this.dir, false, `There is no file ${match.path}.`)
    throw notFoundError(wanted, this.dir, ULID_PREFIX.test(prefix) && this.inFlight(prefix))
  }

  get(ref: string): StoredRunSummary {
    const id = this.resolve(ref)
    const row = this.index.get(id)
    if (!row) throw notFoundError(ref, this.dir)
    return summaryOf(row, row.tags_json, (rel) => resolve(this.dir, rel), row.test_json)
  }

  list(filter: ListFilter = {}): StoredRunSummary[] {
    return listRuns(this.index, this.dir, filter)
  }

  indexTestSession(
    session: TestSessionInput,
    tests: readonly TestRunInput[],
    options: { keep?: number; crashes?: readonly CrashCellsInput[] } = {},
  ): IndexedSession {
    if (this.readOnly) throw readOnlyError(this.dir, `index the tests of session ${session.id}`)
    const skipped: IndexedSession['skipped'] = []
    const entries = []
    /** The run id each cassette holds, for the crash cells below. */
    const ids = new Map<string, string>()
    for (const test of tests) {
      const path = cassetteKey(test.cassette, session.root)
      try {
        // Only the index row is made from it: the cassette stays where its test keeps it.
        const { run } = loadCassette(path, { binaries: false })
        ids.set(path, run.id)
        entries.push({
          row: rowOf(run, path),
          tags: run.tags,
          file: test.file,
          test: test.name,
          state: test.state,
        })
      } catch (error) {
        skipped.push({ cassette: path, reason: (error as Error).message })
      }
    }
    // The crash cells go with the run their cassette holds (its id, as the rows above have it).
    const crashes = []
    for (const crash of options.crashes ?? []) {
      const path = cassetteKey(crash.cassette, session.root)
      let runId = ids.get(path)
      if (runId === undefined) {
        try {
          runId = loadCassette(path, { binaries: false }).run.id
          ids.set(path, runId)
        } catch (error) {
          skipped.push({ cassette: path, reason: (error as Error).message })
          continue
        }
      }
      crashes.push({ runId, test: crash.test, cells: crash.cells })
    }
    const keep = options.keep ?? DEFAULT_KEEP_SESSIONS
    const droppedSessions = this.index.tests.indexTests(session, entries, keep, crashes)
    return { indexed: entries.length, skipped, droppedSessions }
  }

  crashCellsOf(ref: string): StoredCrashCells[] {
    return this.index.tests
      .crashCellsOf(this.resolve(ref))
      .map(({ test, cells, sessionStartedAt }) => ({ test, cells: [...cells], sessionStartedAt }))
  }

  sessions(): Array<{ id: string; startedAt: string; runs: number }> {
    return this.index.tests.sessions()
  }

  tag(ref: string, ...tags: string[]): void {
    if (this.readOnly) throw readOnlyError(this.dir, `tag run ${ref}`)
    this.index.addTags(this.resolve(ref), checkTags(tags))
  }

  untag(ref: string, ...tags: string[]): void {
    if (this.readOnly) throw readOnlyError(this.dir, `untag run ${ref}`)
    this.index.removeTags(this.resolve(ref), checkTags(tags))
  }

  cassettePath(id: string): string {
    if (!RunIdSchema.safeParse(id).success) {
      throw new CrashlabError(
        'E_RUN_NOT_FOUND',
        `${JSON.stringify(String(id).slice(0, 40))} is not a run id (a ULID of 26 characters)`,
      )
    }
    return join(this.dir, relativeCassette(id))
  }

  startJournal(init: JournalInit): RunJournal {
    if (this.readOnly) throw readOnlyError(this.dir, `journal run ${init.id}`)
    return new JournalFile(this.dir, init, this.cassettePath(init.id), (run, options) =>
      this.save(run, options),
    )
  }

  finalizeJournals(): number {
    // Journals of dead processes wait until the store can be written: nothing is lost meanwhile.
    if (this.readOnly) return 0
    return finalizeJournals({
      dir: this.dir,
      has: (id) => this.index.has(id),
      save: (run) => void this.save(run),
    })
  }

  close(): void {
    this.index.close()
  }

  /** Whether a run with this prefix is still being journaled (for a clearer not-found message). */
  private inFlight(prefix: string): boolean {
    try {
      return readdirSync(join(this.dir, 'journal')).some((n) => n.startsWith(prefix))
    } catch {
      return false
    }
  }
}

function relativeCassette(id: string): string {
  return `runs/${id}.cassette.json`
}

function checkTags(tags: readonly string[]): string[] {
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.trim() === '') {
      throw new TypeError(`[crashlab] a tag is a non-empty string; got ${JSON.stringify(tag)}`)
    }
  }
  return [...tags]
}
