import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCassette } from './cassette-load.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { writeCassette } from './cassette-write.ts'
import { buildRealisticRun, writtenCassetteOf } from './internal/test-runs.ts'

/**
 * Atomic write under SIGKILL: a child process writes two different ~600 kB cassettes to one target in
 * turns, and is killed at a random moment, over and over. After every kill the target must be absent
 * (only when no write had completed yet) or hold exactly one of the two cassettes, byte for byte, and
 * load. A kill during a write leaves the writer's temp file behind (nothing runs after SIGKILL to remove
 * it): that is expected, and it must be a dot-prefixed `.tmp` file that neither confuses the next read
 * nor blocks the next write.
 *
 * A child process per kill is the price of SIGKILL. One that loads the whole writer (zod, the redactor)
 * takes ~250 ms of CPU to start, so 100 such kills would not fit in the time budget on two cores: 100
 * trials run the writer's last step alone (`writeFileAtomic` of the exact bytes `writeCassette` writes:
 * the only part that touches the target) with delays scaled to its ~2 ms writes, and 12 more run the
 * whole `writeCassette` with delays scaled to its ~40 ms writes.
 */

const WRITER = fileURLToPath(new URL('./internal/test-kill-writer.ts', import.meta.url))
const STEPS = 80
const PARALLEL = 3
type Mode = 'bytes' | 'cassette'
/** Kills per mode, and the longest delay after the chosen event: about one write of that mode. */
const PLAN: Record<Mode, { trials: number; maxDelayMs: number }> = {
  bytes: { trials: 100, maxDelayMs: 4 },
  cassette: { trials: 12, maxDelayMs: 50 },
}
const TARGET = 'c.cassette.json'
const TEMP = /^\.c\.cassette\.json\.\d+\.[0-9a-f]{12}\.tmp$/

const root = mkdtempSync(join(tmpdir(), 'crashlab-kill-'))
const children = new Set<ChildProcess>()
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(root, { recursive: true, force: true })
})

const runs = [buildRealisticRun({ steps: STEPS, seed: 1 }), buildRealisticRun({ steps: STEPS, seed: 2 })]
const expected = runs.map((run) => serializeCassette(writtenCassetteOf(run)))
const sources = expected.map((text, k) => {
  const file = join(root, `expected-${k}.json`)
  writeFileSync(file, text)
  return file
})

interface Trial {
  mode: Mode
  present: boolean
  tempFiles: number
}

/**
 * Starts a writer, kills it `delayMs` after its `after`-th completed write (0: after `ready`), and checks
 * what it left. Counting writes rather than milliseconds keeps the kills spread over the write cycle
 * however loaded the machine is.
 */
async function trial(i: number, mode: Mode, after: number, delayMs: number): Promise<Trial> {
  const dir = join(root, `t${i}`)
  const target = join(dir, TARGET)
  mkdirSync(dir)
  const args = mode === 'bytes' ? [target, ...sources] : [target, String(STEPS)]
  const child = spawn(process.execPath, [WRITER, mode, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_COMPILE_CACHE: join(root, '.compile-cache') },
  })
  children.add(child)
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => (out += d))
  child.stderr!.on('data', (d: Buffer) => (err += d))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const mark = after === 0 ? 'ready\n' : `wrote ${after}\n`
  await new Promise<void>((resolve, reject) => {
    const onData = () => out.includes(mark) && resolve()
    child.stdout!.on('data', onData)
    child.on('exit', (code) => reject(new Error(`writer exited (${code}) before it was ready: ${err}`)))
  })
  await new Promise((r) => setTimeout(r, delayMs))
  child.kill('SIGKILL')
  await exited
  children.delete(child)

  const completed = Math.max(0, ...[...out.matchAll(/^wrote (\d+)$/gm)].map((m) => Number(m[1])))
  const others = readdirSync(dir).filter((f) => f !== TARGET)
  for (const f of others) expect(f, 'only dot-prefixed temp files may remain').toMatch(TEMP)
  if (!existsSync(target)) {
    expect(completed, 'the target may be absent only before the first write completes').toBe(0)
    return { mode, present: false, tempFiles: others.length }
  }
  const bytes = readFileSync(target, 'utf8')
  const which = expected.indexOf(bytes)
  expect(
    which,
    `trial ${i}: the target is neither whole cassette (${bytes.length} bytes)`,
  ).toBeGreaterThanOrEqual(0)
  // the temp files left beside it do not confuse a read...
  expect(loadCassette(target).run.id).toBe(runs[which]!.id)
  // ...nor the next write
  if (i % 10 === 0) {
    writeCassette(target, runs[1 - which]!)
    expect(readFileSync(target, 'utf8')).toBe(expected[1 - which])
  }
  return { mode, present: true, tempFiles: others.length }
}

describe('writeCassette under SIGKILL', () => {
  it('leaves the old cassette or the new one, never a mix, after each of 112 random kills', async () => {
    // the parent's own write of each run gives exactly the expected bytes (nothing to redact)
    for (const [k, run] of runs.entries()) {
      writeCassette(join(root, `check-${k}.json`), run)
      expect(readFileSync(join(root, `check-${k}.json`), 'utf8')).toBe(expected[k])
    }
    expect(expected[0]!.length).toBeGreaterThan(200_000)
    expect(expected[0]!.length).toBeLessThan(1_000_000)

    const queue = (Object.keys(PLAN) as Mode[]).flatMap((mode) =>
      Array.from({ length: PLAN[mode].trials }, () => mode),
    )
    const results: Trial[] = []
    let next = 0
    const worker = async () => {
      while (next < queue.length) {
        const i = next++
        const mode = queue[i]!
        // One kill in five right after start-up (before the first write lands), the rest after 1 to 4 writes.
        const after = Math.random() < 0.2 ? 0 : 1 + Math.floor(Math.random() * 4)
        const delay = after === 0 ? 0 : Math.random() * PLAN[mode].maxDelayMs
        results.push(await trial(i, mode, after, delay))
      }
    }
    await Promise.all(Array.from({ length: PARALLEL }, worker))

    expect(results).toHaveLength(queue.length)
    // the trials covered the three situations: no write yet, between writes, and mid-write
    expect(results.filter((r) => !r.present).length).toBeGreaterThan(0)
    expect(results.filter((r) => r.present).length).toBeGreaterThan(queue.length / 2)
    expect(results.filter((r) => r.tempFiles > 0).length).toBeGreaterThan(0)
    expect(results.filter((r) => r.mode === 'cassette' && r.present).length).toBeGreaterThan(0)
  }, 60_000)
})
