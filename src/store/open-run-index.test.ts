import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { testRun } from './internal/test-store-runs.ts'
import { openRunIndex } from './open-run-index.ts'
import { openStore } from './open-store.ts'
import { LocalRunStore } from './run-store.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-run-index-'))
  dirs.push(dir)
  return dir
}

/** A store with three runs saved and closed, as `crashlab ls` finds it. */
async function savedStore(): Promise<{ dir: string; ids: string[] }> {
  const dir = folder()
  const store = await openStore({ dir, config: false })
  const runs = [
    testRun({ name: 'a', steps: 2 }),
    testRun({ name: 'b', severities: ['critical'], steps: 1 }),
    testRun({ name: 'c', failedChecks: 1, steps: 3 }),
  ]
  for (const [i, run] of runs.entries()) store.save(run, { tags: i === 0 ? ['nightly'] : [] })
  store.close()
  return { dir, ids: runs.map((r) => r.id) }
}

describe('openRunIndex', () => {
  it('reads a ready store through its index alone, and lists what the full store lists', async () => {
    const { dir } = await savedStore()
    const index = await openRunIndex({ dir })
    const store = await openStore({ dir, config: false })
    try {
      expect(index).not.toBeInstanceOf(LocalRunStore)
      expect(index.dir).toBe(dir)
      for (const filter of [
        {},
        { flagged: true },
        { tag: 'nightly' },
        { minSeverity: 'critical' as const },
        { limit: 1 },
      ])
        expect(index.list(filter), JSON.stringify(filter)).toEqual(store.list(filter))
      expect(index.list()).toHaveLength(3)
      expect(index.sessions()).toEqual(store.sessions())
    } finally {
      index.close()
      store.close()
    }
  })

  it('opens the full store when there is none yet: it is created, and empty', async () => {
    const dir = join(folder(), 'new')
    const index = await openRunIndex({ dir })
    try {
      expect(index).toBeInstanceOf(LocalRunStore)
      expect(index.list()).toEqual([])
      expect(existsSync(join(dir, 'index.db'))).toBe(true)
    } finally {
      index.close()
    }
  })

  it('opens the full store when a dead process left a journal, so the run it held is listed', async () => {
    const { dir } = await savedStore()
    const store = await openStore({ dir, config: false })
    const run = testRun({ name: 'journaled', steps: 2 })
    const journal = store.startJournal({
      id: run.id,
      name: run.name,
      input: run.input,
      startedAt: run.startedAt,
    })
    for (const step of run.steps) journal.append(step)
    store.close()
    const dead = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
        .stdout,
    )
    writeFileSync(
      journal.path,
      readFileSync(journal.path, 'utf8').replace(`"pid":${process.pid},`, `"pid":${dead},`),
    )

    const index = await openRunIndex({ dir })
    try {
      expect(index).toBeInstanceOf(LocalRunStore)
      expect(index.list().map((r) => r.id)).toContain(run.id)
    } finally {
      index.close()
    }
  })

  it('opens the full store when index.db is not crashlab’s, which moves it aside and rebuilds the index', async () => {
    const { dir, ids } = await savedStore()
    rmSync(join(dir, 'index.db'))
    writeFileSync(join(dir, 'index.db'), '')
    const index = await openRunIndex({ dir })
    try {
      expect(index).toBeInstanceOf(LocalRunStore)
      expect(
        index
          .list()
          .map((r) => r.id)
          .sort(),
      ).toEqual([...ids].sort())
    } finally {
      index.close()
    }
  })
})
