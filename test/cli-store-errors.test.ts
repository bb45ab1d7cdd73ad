import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUILT_BIN, runBinSync } from './helpers/built-bin.ts'

/**
 * The store's failure modes through the built bin: each is a coded `[crashlab]` error, never a stack
 * trace; a read-only store can be read; an empty or foreign index is moved aside and rebuilt. As root,
 * file modes deny nothing, so the permission cases run the bin as the `nobody` user (uid 65534).
 */
const root = resolve(import.meta.dirname, '..')
const CLEAN = join(root, 'examples/refund-bot/__cassettes__/refund-a17.cassette.json')
const CLEAN_ID = '01M8KT641KV9P7GYP4TQ09Y4VQ'
const STACK = /^\s+at .+:\d+:\d+\)?$/m
const isRoot = process.getuid?.() === 0

let dir: string
let template: string

/**
 * The folders above the checkout that `nobody` cannot pass through (a clone under a `mktemp -d` folder,
 * mode 700), given search permission (`o+x`, not read) while these tests run, so that it can reach the
 * built bin and its dependencies; their modes are put back after.
 */
const relaxed: Array<{ path: string; mode: number }> = []
function letNobodyReachTheBin(): void {
  if (!isRoot) return
  for (let at = dirname(root); ; at = dirname(at)) {
    const mode = statSync(at).mode & 0o7777
    if ((mode & 0o001) === 0) {
      relaxed.push({ path: at, mode })
      chmodSync(at, mode | 0o001)
    }
    if (dirname(at) === at) break
  }
}

function crashlab(...args: string[]) {
  return runBinSync(dir, {}, ...args)
}

/** The bin as an unprivileged user (when this is root), for the permission cases. */
function asUser(...args: string[]) {
  if (!isRoot) return crashlab(...args)
  const r = spawnSync(process.execPath, [BUILT_BIN, ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    uid: 65534,
    gid: 65534,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: tmpdir() },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

function store(name: string): string {
  const path = join(dir, name)
  cpSync(template, path, { recursive: true })
  return path
}

function expectCoded(r: { code: number | null; stderr: string; stdout: string }, code: string): void {
  expect(r.code).toBe(1)
  expect(r.stderr).toContain('[crashlab]')
  expect(r.stderr).toContain(`(${code})`)
  expect(r.stdout + r.stderr).not.toMatch(STACK)
}

beforeAll(() => {
  letNobodyReachTheBin()
  dir = mkdtempSync(join(tmpdir(), 'crashlab-store-errors-'))
  chmodSync(dir, 0o755)
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  template = join(dir, 'template')
  const r = crashlab('import', CLEAN, '--dir', template)
  expect(r.code).toBe(0)
})
afterAll(() => {
  for (const { path, mode } of relaxed.splice(0)) chmodSync(path, mode)
  for (const name of readdirSync(dir)) {
    try {
      chmodSync(join(dir, name), 0o755)
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true })
})

describe('a store that cannot be used is a coded error', () => {
  it('index.db is a folder: E_STORE_CORRUPT, naming it', () => {
    const s = store('dir-index')
    for (const f of ['index.db', 'index.db-wal', 'index.db-shm']) rmSync(join(s, f), { force: true })
    mkdirSync(join(s, 'index.db'))
    const r = crashlab('ls', '--dir', s)
    expectCoded(r, 'E_STORE_CORRUPT')
    expect(r.stderr).toContain('is a folder')
  })

  it('the store folder is a file: E_STORE_ACCESS', () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, 'not a store\n')
    for (const cmd of [['ls'], ['show', 'last'], ['import', CLEAN]]) {
      const r = crashlab(...cmd, '--dir', file)
      expectCoded(r, 'E_STORE_ACCESS')
      expect(r.stderr).toContain('is a file, not a folder')
    }
  })

  it('an unreadable folder: E_STORE_ACCESS', () => {
    const s = store('unreadable')
    chmodSync(s, 0o000)
    const r = asUser('ls', '--dir', s)
    chmodSync(s, 0o755)
    expectCoded(r, 'E_STORE_ACCESS')
    expect(r.stderr).toContain('cannot be read')
  })
})

describe('a read-only store', () => {
  let s: string
  beforeAll(() => {
    s = store('read-only')
    // WAL leftovers of the import are checkpointed away by the next open; then everything is made read-only.
    expect(crashlab('ls', '--dir', s).code).toBe(0)
    spawnSync('chmod', ['-R', 'a-w', s])
  })
  afterAll(() => void spawnSync('chmod', ['-R', 'u+w', s]))

  it('ls, show and report work', () => {
    const ls = asUser('ls', '--dir', s)
    expect(ls.stderr).toBe('')
    expect(ls.code).toBe(0)
    expect(ls.stdout).toContain(CLEAN_ID)
    const show = asUser('show', CLEAN_ID.slice(0, 10), '--dir', s)
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('refund-bot')
    const report = asUser('report', 'last', '--dir', s)
    expect(report.code).toBe(0)
    expect(report.stdout).toContain(CLEAN_ID)
  })

  it('writing commands fail with E_STORE_READ_ONLY and change nothing', () => {
    const before = readdirSync(join(s, 'runs')).sort()
    for (const cmd of [
      ['import', CLEAN],
      ['check', 'last', '--save'],
    ]) {
      const r = asUser(...cmd, '--dir', s)
      expectCoded(r, 'E_STORE_READ_ONLY')
      expect(r.stderr).toContain('read-only')
    }
    expect(readdirSync(join(s, 'runs')).sort()).toEqual(before)
  })
})

describe('an index that is not ours is moved aside and rebuilt', () => {
  it('a zero-byte index.db', () => {
    const s = store('empty-index')
    for (const f of ['index.db', 'index.db-wal', 'index.db-shm']) rmSync(join(s, f), { force: true })
    writeFileSync(join(s, 'index.db'), '')
    const r = crashlab('ls', '--dir', s)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(CLEAN_ID)
    expect(r.stderr).toContain('was empty: moved it to')
    const moved = readdirSync(s).filter((n) => n.startsWith('index.db.moved-'))
    expect(moved).toHaveLength(1)
    expect(readFileSync(join(s, moved[0]!)).length).toBe(0)
    // Rebuilt once: the next open finds its own index and says nothing.
    const again = crashlab('ls', '--dir', s)
    expect(again.stderr).toBe('')
    expect(again.stdout).toContain(CLEAN_ID)
  })

  it("another program's SQLite database, kept intact under its new name", () => {
    const s = store('foreign-index')
    for (const f of ['index.db', 'index.db-wal', 'index.db-shm']) rmSync(join(s, f), { force: true })
    const db = new DatabaseSync(join(s, 'index.db'))
    db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
    db.close()
    const r = crashlab('ls', '--dir', s)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(CLEAN_ID)
    expect(r.stderr).toContain("is not crashlab's index")
    const moved = readdirSync(s).filter((n) => /^index\.db\.moved-[^.]*$/.test(n) && !/-(wal|shm)$/.test(n))
    expect(moved).toHaveLength(1)
    const kept = new DatabaseSync(join(s, moved[0]!), { readOnly: true })
    expect(kept.prepare('SELECT body FROM notes').get()).toEqual({ body: 'keep me' })
    kept.close()
    expect(existsSync(join(s, 'index.db'))).toBe(true)
  })
})
