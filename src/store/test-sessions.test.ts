import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { writeCassette } from '../case/cassette-write.ts'
import { isCrashlabError } from '../errors.ts'
import { testRun } from './internal/test-store-runs.ts'
import { LocalRunStore } from './run-store.ts'
import type { RunStore, TestRunInput } from './types.ts'

const dirs: string[] = []
const stores: RunStore[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A project folder with a store in `.crashlab` and test cassettes under `__cassettes__`. */
function project(): { root: string; store: LocalRunStore } {
  const root = mkdtempSync(join(tmpdir(), 'crashlab-sessions-'))
  dirs.push(root)
  const store = new LocalRunStore(join(root, '.crashlab'))
  stores.push(store)
  return { root, store }
}

/** Writes a test's cassette (a run of its own) and returns what the plugin hands the store for it. */
function cassette(root: string, file: string, name: string, state = 'passed', minute = 0): TestRunInput {
  const path = join(root, '__cassettes__', file, `${name.replaceAll(' > ', ' ')}.cassette.json`)
  mkdirSync(join(path, '..'), { recursive: true })
  writeCassette(path, testRun({ name: 'order-bot', minute }))
  return { cassette: path, file, name, state }
}

function session(n: number, root: string) {
  const id = `01JS${String(n).padStart(22, '0')}`
  return { id, startedAt: new Date(Date.UTC(2026, 10, 2, 0, n)).toISOString(), root }
}

function thrown(fn: () => unknown): Error & { code?: string } {
  try {
    fn()
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected a throw')
}

describe("the store's index of Vitest sessions", () => {
  it("indexes each test's cassette where it is, listed by session with the test's file and name", () => {
    const { root, store } = project()
    const a = cassette(root, 'orders.spec.ts', 'orders > where is A17', 'failed')
    const b = cassette(root, 'orders.spec.ts', 'orders > where is A18')
    const result = store.indexTestSession(session(1, root), [a, b])
    expect(result).toEqual({ indexed: 2, skipped: [], droppedSessions: 0 })
    const runs = store.list({ session: 'last' })
    expect(runs.map((r) => [r.test?.file, r.test?.name, r.test?.state])).toEqual([
      ['orders.spec.ts', 'orders > where is A17', 'failed'],
      ['orders.spec.ts', 'orders > where is A18', 'passed'],
    ])
    expect(runs[0]?.path).toBe(a.cassette)
    expect(runs[0]?.test?.session).toBe(session(1, root).id)
    // The store holds no copy: the test owns its cassette.
    expect(readdirSync(join(store.dir, 'runs'))).toEqual([])
    expect(store.load(runs[0]?.id as string).id).toBe(runs[0]?.id)
    expect(store.list().map((r) => r.test?.name)).toContain('orders > where is A17')
    expect(store.sessions()).toEqual([
      { id: session(1, root).id, startedAt: session(1, root).startedAt, runs: 2 },
    ])
  })

  it('resolves a cassette path (absolute or relative) and a test full name, with or without its file', () => {
    const { root, store } = project()
    const a = cassette(root, 'orders.spec.ts', 'orders > where is A17')
    store.indexTestSession(session(1, root), [a])
    const id = store.list({ session: 'last' })[0]?.id as string
    expect(store.resolve(a.cassette)).toBe(id)
    expect(store.resolve(relative(process.cwd(), a.cassette))).toBe(id)
    expect(store.resolve('orders > where is A17')).toBe(id)
    expect(store.resolve('orders.spec.ts > orders > where is A17')).toBe(id)
    expect(store.resolve('test/orders.spec.ts > orders > where is A17')).toBe(id)
    expect(store.load('orders.spec.ts > orders > where is A17').id).toBe(id)
  })

  it('a test name resolves to the run of the newest session that ran it', () => {
    const { root, store } = project()
    const first = cassette(root, 'orders.spec.ts', 'orders > where is A17')
    store.indexTestSession(session(1, root), [first])
    const old = store.resolve('orders > where is A17')
    // Recorded again: the same file holds a new run, and the old id's row is gone with it.
    const again = cassette(root, 'orders.spec.ts', 'orders > where is A17', 'passed', 5)
    store.indexTestSession(session(2, root), [again])
    const now = store.resolve('orders > where is A17')
    expect(now).not.toBe(old)
    expect(store.resolve(again.cassette)).toBe(now)
    expect(thrown(() => store.resolve(old)).code).toBe('E_RUN_NOT_FOUND')
  })

  it('a name several tests end with is E_RUN_AMBIGUOUS listing them; no match names the tries and `crashlab ls --session last`', () => {
    const { root, store } = project()
    store.indexTestSession(session(1, root), [
      cassette(root, 'a.spec.ts', 'smoke'),
      cassette(root, 'b.spec.ts', 'smoke'),
    ])
    const ambiguous = thrown(() => store.resolve('smoke'))
    expect(isCrashlabError(ambiguous, 'E_RUN_AMBIGUOUS')).toBe(true)
    expect(ambiguous.message).toContain('"a.spec.ts > smoke"')
    expect(ambiguous.message).toContain('"b.spec.ts > smoke"')
    expect(store.resolve('b.spec.ts > smoke')).toBe(store.list({ session: 'last' })[1]?.id)
    const missing = thrown(() => store.resolve('orders > nowhere'))
    expect(isCrashlabError(missing, 'E_RUN_NOT_FOUND')).toBe(true)
    expect(missing.message).toContain('a cassette path')
    expect(missing.message).toContain("a test's full name")
    expect(missing.message).toContain('`crashlab ls --session last`')
  })

  it('a cassette the index does not know is E_RUN_NOT_FOUND naming it and how to add it', () => {
    const { root, store } = project()
    const loose = cassette(root, 'orders.spec.ts', 'never indexed')
    const error = thrown(() => store.load(loose.cassette))
    expect(isCrashlabError(error, 'E_RUN_NOT_FOUND')).toBe(true)
    expect(error.message).toContain(loose.cassette)
    expect(error.message).toContain(`crashlab import ${loose.cassette}`)
    const nowhere = join(root, 'nowhere.cassette.json')
    const none = thrown(() => store.load(nowhere))
    expect(isCrashlabError(none, 'E_RUN_NOT_FOUND')).toBe(true)
    expect(none.message).toContain(`There is no file ${nowhere}`)
  })

  it('keeps the newest 20 sessions by default: 21 keep 20, and the cassettes stay', () => {
    const { root, store } = project()
    const tests: TestRunInput[] = []
    for (let n = 1; n <= 21; n++) {
      const test = cassette(root, 'orders.spec.ts', `run ${n}`)
      tests.push(test)
      const { droppedSessions } = store.indexTestSession(session(n, root), [test])
      expect(droppedSessions).toBe(n === 21 ? 1 : 0)
    }
    const kept = store.sessions()
    expect(kept).toHaveLength(20)
    expect(kept.at(-1)?.id).toBe(session(2, root).id)
    expect(store.list({ session: session(1, root).id })).toEqual([])
    expect(thrown(() => store.resolve('run 1')).code).toBe('E_RUN_NOT_FOUND')
    expect(store.resolve('run 2')).toBeTruthy()
    expect(store.list()).toHaveLength(20)
    for (const test of tests) expect(existsSync(test.cassette)).toBe(true)
  })

  it('keeps as many sessions as asked', () => {
    const { root, store } = project()
    for (let n = 1; n <= 4; n++)
      store.indexTestSession(session(n, root), [cassette(root, 'a.spec.ts', `t${n}`)], { keep: 2 })
    expect(store.sessions().map((s) => s.id)).toEqual([session(4, root).id, session(3, root).id])
  })

  it("keeps a run of the store's own when a test's cassette has its id, and drops it with no session", () => {
    const { root, store } = project()
    const test = cassette(root, 'a.spec.ts', 'imported')
    const run = testRun({ name: 'order-bot' })
    writeCassette(test.cassette, run)
    store.save(run)
    store.indexTestSession(session(1, root), [test], { keep: 1 })
    store.indexTestSession(session(2, root), [cassette(root, 'a.spec.ts', 'other')], { keep: 1 })
    expect(store.get(run.id).path).toBe(join(store.dir, 'runs', `${run.id}.cassette.json`))
  })

  it('upgrades an index of version 1 in place', () => {
    const { root, store } = project()
    const saved = store.save(testRun())
    store.close()
    const db = new DatabaseSync(join(store.dir, 'index.db'))
    db.exec('DROP TABLE test_runs; DROP TABLE test_sessions; PRAGMA user_version = 1')
    db.close()
    const reopened = new LocalRunStore(store.dir)
    stores.push(reopened)
    expect(reopened.get(saved.id).id).toBe(saved.id)
    reopened.indexTestSession(session(1, root), [cassette(root, 'a.spec.ts', 'smoke')])
    expect(reopened.list({ session: 'last' })).toHaveLength(1)
  })

  describe('the crash-test cells a session ran (crashTest)', () => {
    const cell = (step: number, outcome: string) => ({
      step,
      fault: { kind: 'rate_limit' },
      outcome,
      detail: outcome === 'failed' ? 'RateLimitError' : 'finished',
    })

    it("keeps them with the run the cassette holds, and gives the newest session's", () => {
      const { root, store } = project()
      const base = cassette(root, 'refund.spec.ts', 'refund')
      store.indexTestSession(session(1, root), [base], {
        crashes: [
          { cassette: base.cassette, test: 'refund', cells: [cell(0, 'survived'), cell(2, 'failed')] },
        ],
      })
      const id = store.list({ session: 'last' })[0]?.id as string
      expect(store.crashCellsOf(id)).toEqual([
        {
          test: 'refund',
          cells: [cell(0, 'survived'), cell(2, 'failed')],
          sessionStartedAt: session(1, root).startedAt,
        },
      ])
      // A later session that ran only the cells (the base test filtered out) still finds the run.
      store.indexTestSession(session(2, root), [], {
        crashes: [{ cassette: base.cassette, test: 'refund', cells: [cell(2, 'survived')] }],
      })
      expect(store.crashCellsOf(id).map((c) => c.cells)).toEqual([[cell(2, 'survived')]])
      // A session without crash cells leaves the newest that had some.
      store.indexTestSession(session(3, root), [base])
      expect(store.crashCellsOf(id).map((c) => c.sessionStartedAt)).toEqual([session(2, root).startedAt])
    })

    it('drops them with their session, and names a cassette it cannot read', () => {
      const { root, store } = project()
      const base = cassette(root, 'refund.spec.ts', 'refund')
      const crashes = [{ cassette: base.cassette, test: 'refund', cells: [cell(0, 'survived')] }]
      store.indexTestSession(session(1, root), [base], { keep: 1, crashes })
      const id = store.list({ session: 'last' })[0]?.id as string
      store.indexTestSession(session(2, root), [base], { keep: 1 })
      expect(store.crashCellsOf(id)).toEqual([])
      const gone = join(root, '__cassettes__', 'gone.spec.ts', 'x.cassette.json')
      const result = store.indexTestSession(session(3, root), [], {
        crashes: [{ cassette: gone, test: 'x', cells: [cell(0, 'survived')] }],
      })
      expect(result.skipped.map((s) => s.cassette)).toEqual([gone])
    })

    it('an index of version 2 gets the table when opened for writing', () => {
      const { root, store } = project()
      const base = cassette(root, 'refund.spec.ts', 'refund')
      store.indexTestSession(session(1, root), [base])
      store.close()
      const db = new DatabaseSync(join(store.dir, 'index.db'))
      db.exec('DROP TABLE crash_cells; PRAGMA user_version = 2')
      db.close()
      const reopened = new LocalRunStore(store.dir)
      stores.push(reopened)
      const id = reopened.list({ session: 'last' })[0]?.id as string
      expect(reopened.crashCellsOf(id)).toEqual([])
      reopened.indexTestSession(session(2, root), [base], {
        crashes: [{ cassette: base.cassette, test: 'refund', cells: [cell(0, 'survived')] }],
      })
      expect(reopened.crashCellsOf(id)).toHaveLength(1)
    })
  })
})
