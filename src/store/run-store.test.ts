import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { isCrashlabError } from '../errors.ts'
import { testRun } from './internal/test-store-runs.ts'
import { load } from './load-run.ts'
import { openStore, resolveStoreDir } from './open-store.ts'
import type { RunStore } from './types.ts'

const dirs: string[] = []
const stores: RunStore[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function fresh(): Promise<RunStore> {
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-store-'))
  dirs.push(dir)
  const store = await openStore({ dir, config: false })
  stores.push(store)
  return store
}

function thrown(fn: () => unknown): Error & { code?: string } {
  try {
    fn()
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected a throw')
}

describe('the run store', () => {
  it('saves a run as a cassette plus an index row, and loads it back', async () => {
    const store = await fresh()
    const run = testRun({ name: 'refund-bot', severities: ['warn', 'critical'], failedChecks: 1, steps: 3 })
    const summary = store.save(run, { tags: ['nightly'] })
    expect(summary).toMatchObject({
      id: run.id,
      name: 'refund-bot',
      status: 'ok',
      steps: 3,
      toolCalls: 3,
      findings: { info: 0, warn: 1, error: 0, critical: 1 },
      maxSeverity: 'critical',
      failedChecks: 1,
      tags: ['nightly'],
      path: store.cassettePath(run.id),
    })
    expect(loadCassette(summary.path).run.tags).toEqual(['nightly'])
    const loaded = store.load(run.id)
    expect(loaded.steps).toEqual(run.steps)
    expect(loaded.tags).toEqual(['nightly'])
    expect(readFileSync(join(store.dir, '.gitignore'), 'utf8')).toContain('*')
  })

  it('redacts the cassette it writes', async () => {
    const store = await fresh()
    const secret = 'sk-proj-StoreTestSecret1234567890abcd'
    const summary = store.save(testRun({ secret }))
    const text = readFileSync(summary.path, 'utf8')
    expect(text).not.toContain(secret)
    expect(text).toContain('[REDACTED:openai-key]')
  })

  it('saving the same id again updates the row and keeps tags added since', async () => {
    const store = await fresh()
    const run = testRun({ status: 'error' })
    store.save(run)
    store.tag(run.id, 'triaged')
    store.save({ ...run, status: 'ok', tags: ['rerun'] })
    expect(store.list()).toHaveLength(1)
    expect(store.get(run.id)).toMatchObject({ status: 'ok', tags: ['rerun', 'triaged'] })
  })

  it('lists newest first, with filters and a limit', async () => {
    const store = await fresh()
    const a = store.save(testRun({ name: 'a', minute: 1 }))
    const b = store.save(testRun({ name: 'b', minute: 3, severities: ['info'] }))
    const c = store.save(testRun({ name: 'a', minute: 2, severities: ['warn'] }))
    const d = store.save(testRun({ name: 'b', minute: 5, status: 'incomplete' }))
    const e = store.save(testRun({ name: 'a', minute: 4, failedChecks: 2, severities: ['error'] }))
    store.tag(b.id, 'verify:01JH7Z', 'mine')
    store.tag(e.id, 'mine')
    const ids = (xs: Array<{ id: string }>) => xs.map((x) => x.id)
    expect(ids(store.list())).toEqual([d.id, e.id, b.id, c.id, a.id])
    expect(ids(store.list({ limit: 2 }))).toEqual([d.id, e.id])
    expect(ids(store.list({ name: 'a' }))).toEqual([e.id, c.id, a.id])
    expect(ids(store.list({ flagged: true }))).toEqual([d.id, e.id, c.id])
    expect(ids(store.list({ flagged: false }))).toEqual([b.id, a.id])
    expect(ids(store.list({ minSeverity: 'warn' }))).toEqual([e.id, c.id])
    expect(ids(store.list({ minSeverity: 'info' }))).toEqual([e.id, b.id, c.id])
    expect(ids(store.list({ tag: 'mine' }))).toEqual([e.id, b.id])
    expect(ids(store.list({ tag: 'verify:01JH7Z', name: 'b' }))).toEqual([b.id])
    expect(store.list({ tag: 'nope' })).toEqual([])
    store.untag(b.id, 'mine')
    expect(ids(store.list({ tag: 'mine' }))).toEqual([e.id])
    expect(store.get(b.id).tags).toEqual(['verify:01JH7Z'])
  })

  it('keeps the links between runs', async () => {
    const store = await fresh()
    const original = store.save(testRun())
    const replay = store.save(testRun({ replayOf: original.id }))
    const fork = store.save(testRun({ forkedFrom: original.id }))
    expect(store.get(replay.id).replayOf).toBe(original.id)
    expect(store.get(fork.id).forkedFrom).toBe(original.id)
    expect(store.get(original.id).replayOf).toBeUndefined()
  })

  it("resolves an id, a unique prefix (any case) and 'last'", async () => {
    const store = await fresh()
    const old = testRun({ id: '01AAAAAAAAAAAAAAAAAAAAAAAA', minute: 1 })
    const newer = testRun({ id: '01BBBBBBBBBBBBBBBBBBBBBBBB', minute: 9 })
    store.save(old)
    store.save(newer)
    expect(store.resolve(old.id)).toBe(old.id)
    expect(store.resolve('01a')).toBe(old.id)
    expect(store.resolve('last')).toBe(newer.id)
    expect(store.load('last').id).toBe(newer.id)
    expect(await load('01B', { dir: store.dir })).toMatchObject({ id: newer.id })
  })

  it('names the ref and `crashlab ls` when nothing matches, and lists the candidates of an ambiguous prefix', async () => {
    const store = await fresh()
    const empty = thrown(() => store.load('last'))
    expect(isCrashlabError(empty, 'E_RUN_NOT_FOUND')).toBe(true)
    expect(empty.message).toMatch(/no stored run yet .*crashlab ls/s)
    const a = store.save(testRun({ id: '01CCCCCCCCCCCCCCCCCCCCCCC1' }))
    const b = store.save(testRun({ id: '01CCCCCCCCCCCCCCCCCCCCCCC2' }))
    const missing = thrown(() => store.get('01D'))
    expect(isCrashlabError(missing, 'E_RUN_NOT_FOUND')).toBe(true)
    expect(missing.message).toContain('"01D"')
    expect(missing.message).toContain(store.dir)
    expect(missing.message).toContain('`crashlab ls`')
    expect(thrown(() => store.resolve('not an id!')).code).toBe('E_RUN_NOT_FOUND')
    const ambiguous = thrown(() => store.load('01CC'))
    expect(isCrashlabError(ambiguous, 'E_RUN_AMBIGUOUS')).toBe(true)
    expect(ambiguous.message).toContain(a.id)
    expect(ambiguous.message).toContain(b.id)
    expect(thrown(() => store.tag('01CC', 'x')).code).toBe('E_RUN_AMBIGUOUS')
  })

  it('refuses empty tags and ids that are not run ids', async () => {
    const store = await fresh()
    const s = store.save(testRun())
    expect(() => store.tag(s.id, '')).toThrow(/non-empty string/)
    expect(() => store.cassettePath('../../etc/passwd')).toThrow(/not a run id/)
  })

  it('finds its folder: option, $CRASHLAB_DIR, the config file, then the current folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'crashlab-store-dir-'))
    dirs.push(root)
    writeFileSync(join(root, 'package.json'), '{}')
    const env = {}
    expect(await resolveStoreDir({ cwd: root, env })).toBe(join(root, '.crashlab'))
    expect(await resolveStoreDir({ cwd: root, env: { CRASHLAB_DIR: 'runs-here' } })).toBe(
      join(root, 'runs-here'),
    )
    expect(await resolveStoreDir({ cwd: root, env, dir: '/tmp/x' })).toBe('/tmp/x')
    writeFileSync(join(root, 'crashlab.config.mjs'), "export default { store: { dir: 'var/store' } }\n")
    expect(await resolveStoreDir({ cwd: root, env })).toBe(join(root, 'var/store'))
    expect(await resolveStoreDir({ cwd: root, env, config: false })).toBe(join(root, '.crashlab'))
  })
})

describe('a damaged index', () => {
  it('is E_STORE_CORRUPT, naming the file and the next step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crashlab-store-bad-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'index.db'), 'this is not an SQLite file, whatever it once was\n'.repeat(100))
    const error = await openStore({ dir, config: false }).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    )
    expect(error?.code).toBe('E_STORE_CORRUPT')
    expect(error?.message).toContain(join(dir, 'index.db'))
    expect(error?.message).toMatch(/Move it away.*rebuilds the index/s)
  })

  it('a missing index is rebuilt from the cassettes', async () => {
    const store = await fresh()
    const a = store.save(testRun({ minute: 1, tags: ['kept'] }))
    const b = store.save(testRun({ minute: 2, severities: ['error'] }))
    store.close()
    for (const f of ['index.db', 'index.db-wal', 'index.db-shm']) rmSync(join(store.dir, f), { force: true })
    expect(existsSync(join(store.dir, 'index.db'))).toBe(false)
    const again = await openStore({ dir: store.dir, config: false })
    stores.push(again)
    expect(again.list().map((s) => s.id)).toEqual([b.id, a.id])
    expect(again.get(a.id).tags).toEqual(['kept'])
    expect(again.get(b.id).maxSeverity).toBe('error')
  })
})
