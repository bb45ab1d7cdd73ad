import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { newRunId } from '../case/create-run.ts'
import { openJournals } from './internal/process-alive.ts'
import { testRun } from './internal/test-store-runs.ts'
import { openStore } from './open-store.ts'
import type { RunJournal, RunStore } from './types.ts'

const SECRET = 'sk-proj-JournalSecret0123456789abcdef'
const dirs: string[] = []
const stores: RunStore[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function fresh(dir = mkdtempSync(join(tmpdir(), 'crashlab-journal-'))): Promise<RunStore> {
  if (!dirs.includes(dir)) dirs.push(dir)
  const store = await openStore({ dir, config: false })
  stores.push(store)
  return store
}

/** The pid of a process that has exited: what a journal of a killed process carries. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  })
  return Number(child.stdout)
}

/** A journal with `steps` steps of a run holding the secret, left as its process would leave it. */
function journalWithSteps(store: RunStore, steps: number): { journal: RunJournal; id: string } {
  const run = testRun({ secret: SECRET, steps })
  const journal = store.startJournal({
    id: run.id,
    name: 'refund-bot',
    input: run.input,
    startedAt: run.startedAt,
  })
  for (const step of run.steps) journal.append(step)
  return { journal, id: run.id }
}

/** Makes the journal look like the one of a process that died (another pid, now gone). */
function orphan(journal: RunJournal): void {
  const text = readFileSync(journal.path, 'utf8')
  writeFileSync(journal.path, text.replace(`"pid":${process.pid},`, `"pid":${deadPid()},`))
}

describe('run journals', () => {
  it('journal each step redacted, one line each, and finish into a stored run', async () => {
    const store = await fresh()
    const { journal, id } = journalWithSteps(store, 3)
    const text = readFileSync(journal.path, 'utf8')
    expect(text.split('\n')).toHaveLength(5) // init, three steps, and the empty string after the last newline
    expect(text).not.toContain(SECRET)
    expect(text).toContain('[REDACTED:openai-key]')
    expect(store.finalizeJournals()).toBe(0) // this process is alive and holds it
    const run = testRun({ secret: SECRET, steps: 3, id })
    const summary = journal.finish(run)
    expect(summary).toMatchObject({ id, status: 'ok', steps: 3 })
    expect(existsSync(journal.path)).toBe(false)
    expect(store.load(id).steps).toHaveLength(3)
  })

  it('finalize the journal of a dead process as an incomplete run with the steps it finished', async () => {
    const store = await fresh()
    const { journal, id } = journalWithSteps(store, 4)
    orphan(journal)
    expect(store.finalizeJournals()).toBe(1)
    expect(existsSync(journal.path)).toBe(false)
    expect(readdirSync(join(store.dir, 'journal'))).toEqual([])
    const summary = store.get(id)
    expect(summary).toMatchObject({ status: 'incomplete', steps: 4, toolCalls: 4, endedAt: null })
    const run = store.load(id)
    expect(run.completeness).toBe('interrupted')
    expect(run.redaction.status).toBe('redacted')
    expect(run.redaction.records.map((r) => r.path)).toContain('/run/input')
    expect(run.redaction.records.map((r) => r.path)).toContain('/run/steps/3/result/note')
    expect(readFileSync(summary.path, 'utf8')).not.toContain(SECRET)
    expect(store.list({ flagged: true }).map((s) => s.id)).toEqual([id])
  })

  it('leave a journal this process holds alone, whatever path the store is opened by', async () => {
    const store = await fresh()
    const { journal, id } = journalWithSteps(store, 1)
    const link = `${store.dir}-link`
    symlinkSync(store.dir, link)
    dirs.push(link)
    const other = await fresh(link)
    expect(other.finalizeJournals()).toBe(0)
    expect(existsSync(journal.path)).toBe(true)
    journal.finish(testRun({ id, steps: 1 }))
    expect(other.get(id).status).toBe('ok')
  })

  it('drop a torn last line', async () => {
    const store = await fresh()
    const { journal, id } = journalWithSteps(store, 2)
    appendFileSync(journal.path, '{"t":"step","step":{"type":"tool","na')
    orphan(journal)
    store.finalizeJournals()
    expect(store.get(id).steps).toBe(2)
  })

  it('a journal of this pid that this process did not open is an earlier process that had the same pid', async () => {
    const store = await fresh()
    const { journal, id } = journalWithSteps(store, 1)
    openJournals().delete(journal.id)
    expect(store.finalizeJournals()).toBe(1)
    expect(store.get(id).status).toBe('incomplete')
  })

  it('the next openStore() finalizes; a run already saved is not overwritten', async () => {
    const store = await fresh()
    const saved = store.save(testRun())
    const { journal: stale } = journalWithSteps(store, 1)
    // a journal whose run was saved before its process died, and one that never was
    const duplicate = join(store.dir, 'journal', `${saved.id}.jsonl`)
    writeFileSync(duplicate, readFileSync(stale.path, 'utf8').replaceAll(stale.id, saved.id))
    orphan({ ...stale, path: duplicate } as RunJournal)
    orphan(stale)
    const next = await fresh(store.dir)
    expect(next.get(saved.id)).toMatchObject({ status: 'ok', steps: 2 })
    expect(next.get(stale.id).status).toBe('incomplete')
    expect(readdirSync(join(store.dir, 'journal'))).toEqual([])
  })

  it('a journal with no readable first line holds nothing and is removed', async () => {
    const store = await fresh()
    const path = join(store.dir, 'journal', `${newRunId()}.jsonl`)
    writeFileSync(path, '{"t":"init","id":')
    expect(store.finalizeJournals()).toBe(0)
    expect(existsSync(path)).toBe(false)
    expect(store.list()).toEqual([])
  })

  it('abandon removes the journal and stores nothing', async () => {
    const store = await fresh()
    const { journal } = journalWithSteps(store, 1)
    journal.abandon()
    expect(existsSync(journal.path)).toBe(false)
    expect(store.finalizeJournals()).toBe(0)
    expect(store.list()).toEqual([])
    expect(() => journal.append(testRun().steps[0]!)).toThrow(/closed/)
  })
})
