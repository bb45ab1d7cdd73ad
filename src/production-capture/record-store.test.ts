import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../store/open-store.ts'
import { type ScriptedProvider, startScriptedProvider } from '../testing/index.ts'

/**
 * Production capture in real processes: children that are plain Node processes (no Vitest, so
 * `record()` stores by default), capturing through the real OpenAI SDK and `wrap()` into one store.
 */

const CHILD = fileURLToPath(new URL('./internal/test-capture-child.ts', import.meta.url))
const SECRET = 'sk-proj-ChildCaptureSecret0123456789abcd' // as in the child
const root = mkdtempSync(join(tmpdir(), 'crashlab-capture-'))
const children = new Set<ChildProcess>()
let provider: ScriptedProvider

beforeAll(async () => {
  provider = await startScriptedProvider({
    policy: () => ({ text: `Order A17 is on its way (key ${SECRET}).` }),
  })
})
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  await provider.close()
  rmSync(root, { recursive: true, force: true })
})

/** A project folder (a package.json stops the config search) for a child to run in. */
function project(name: string): string {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n')
  return dir
}

interface Child {
  process: ChildProcess
  out: () => string
  err: () => string
  exited: Promise<number | null>
  /** Resolves once the child printed `line`. */
  printed: (line: string) => Promise<void>
}

function start(cwd: string, args: string[], env: Record<string, string> = {}): Child {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && !k.startsWith('CRASHLAB_')),
  )
  const child = spawn(process.execPath, [CHILD, ...args], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...clean, ...env, NODE_COMPILE_CACHE: join(root, '.compile-cache') },
  })
  children.add(child)
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => (out += d))
  child.stderr!.on('data', (d: Buffer) => (err += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  void exited.then(() => children.delete(child))
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => out.split('\n').includes(line) && resolve()
      check()
      child.stdout!.on('data', check)
      void exited.then((code) =>
        reject(new Error(`child exited (${code}) before "${line}":\n${out}\n${err}`)),
      )
    })
  return { process: child, out: () => out, err: () => err, exited, printed }
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
}

function expectNoSecret(dir: string): void {
  const files = filesUnder(dir)
  expect(files.length).toBeGreaterThan(0)
  for (const file of files) expect(readFileSync(file).includes(SECRET), file).toBe(false)
}

describe('record() in a plain Node process', () => {
  it('stores the run in .crashlab/ by default, with the secret key nowhere under it', async () => {
    const cwd = project('default')
    const child = start(cwd, ['once', provider.url])
    expect(await child.exited, child.err()).toBe(0)
    expect(child.out()).toContain('done 1')
    // node:sqlite's one-time ExperimentalWarning is filtered; nothing else is printed either
    expect(child.err()).toBe('')
    const store = await openStore({ dir: join(cwd, '.crashlab'), config: false })
    try {
      const [summary] = store.list()
      expect(store.list()).toHaveLength(1)
      expect(summary).toMatchObject({ name: 'next-start', status: 'ok', steps: 2, llmCalls: 1, toolCalls: 1 })
      expect(summary!.tokens).toBeGreaterThan(0)
      const run = store.load('last')
      expect(run.steps.map((s) => s.type)).toEqual(['tool', 'llm'])
      expect(run.redaction.status).toBe('redacted')
      expect(readdirSync(join(cwd, '.crashlab', 'journal'))).toEqual([])
    } finally {
      store.close()
    }
    expectNoSecret(join(cwd, '.crashlab'))
  })
})

describe('the store under several processes', () => {
  it('two processes capturing 50 runs each into one store at once lose nothing', async () => {
    const cwd = project('concurrent')
    const dir = join(cwd, 'shared-store')
    const a = start(cwd, ['many', provider.url, '50', 'a'], { CRASHLAB_DIR: dir })
    const b = start(cwd, ['many', provider.url, '50', 'b'], { CRASHLAB_DIR: dir })
    await Promise.all([a.printed('ready'), b.printed('ready')])
    // both start capturing only once both are up, so that their runs overlap
    a.process.stdin!.write('go\n')
    b.process.stdin!.write('go\n')
    expect(await a.exited, a.err()).toBe(0)
    expect(await b.exited, b.err()).toBe(0)
    expect(a.out()).toContain('done 50')
    expect(b.out()).toContain('done 50')

    const store = await openStore({ dir, config: false })
    try {
      const runs = store.list()
      expect(runs).toHaveLength(100)
      expect(new Set(runs.map((r) => r.id)).size).toBe(100)
      expect(store.list({ tag: 'child:a' })).toHaveLength(50)
      expect(store.list({ tag: 'child:b', name: 'status-b' })).toHaveLength(50)
      for (const summary of runs) {
        const run = store.load(summary.id)
        expect(run.status).toBe('ok')
        expect(run.steps.map((s) => s.type)).toEqual(['tool', 'llm'])
      }
      expect(readdirSync(join(dir, 'journal'))).toEqual([])
      expect(readdirSync(join(dir, 'runs')).filter((f) => f.endsWith('.cassette.json'))).toHaveLength(100)
    } finally {
      store.close()
    }
  }, 60_000)

  it('a capture process killed mid-run leaves an incomplete run after the next start', async () => {
    const cwd = project('killed')
    const dir = join(cwd, '.crashlab')
    const steps = 3
    const doomed = start(cwd, ['hang', provider.url, String(steps)])
    await doomed.printed(`journaled ${steps}`)
    doomed.process.kill('SIGKILL')
    await doomed.exited
    // what the killed process left: its journal, redacted, with an init line and one line per step
    const [journal] = readdirSync(join(dir, 'journal'))
    expect(journal).toMatch(/^[0-9A-Z]{26}\.jsonl$/)
    const text = readFileSync(join(dir, 'journal', journal!), 'utf8')
    expect(text.trim().split('\n')).toHaveLength(1 + steps)
    expect(text).not.toContain(SECRET)

    const next = start(cwd, ['once', provider.url])
    expect(await next.exited, next.err()).toBe(0)
    const store = await openStore({ dir, config: false })
    try {
      const incomplete = store.list({ name: 'hangs' })
      expect(incomplete).toHaveLength(1)
      expect(incomplete[0]).toMatchObject({ status: 'incomplete', steps, llmCalls: steps, endedAt: null })
      expect(incomplete[0]!.id).toBe(journal!.slice(0, 26))
      const run = store.load(incomplete[0]!.id)
      expect(run.completeness).toBe('interrupted')
      expect(run.steps.every((s) => s.type === 'llm' && s.response?.wire.status === 200)).toBe(true)
      expect(store.list({ name: 'next-start' })).toHaveLength(1)
      expect(store.list({ flagged: true }).map((r) => r.id)).toEqual([incomplete[0]!.id])
      expect(readdirSync(join(dir, 'journal'))).toEqual([])
    } finally {
      store.close()
    }
    expectNoSecret(dir)
  }, 60_000)
})
