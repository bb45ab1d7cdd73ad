import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { hostileCase } from '../src/case/internal/test-hostile-inputs.ts'
import { runCommand } from '../src/cli/internal/command.ts'
import { main } from '../src/cli/main.ts'
import { runBinSync } from './helpers/built-bin.ts'

/**
 * A sample of the loader fuzz (src/case/loader-bounds.test.ts) through every CLI command that reads a
 * file (validate, inspect, import, scan) or a store (ls with a rebuilt index, show, report, check, diff,
 * export), in process through the real command tree, then a part of it through the built bin: no
 * untyped error, no stack trace, and output under MAX_OUTPUT per command.
 */
const root = resolve(import.meta.dirname, '..')
const CLEAN = join(root, 'examples/refund-bot/__cassettes__/refund-a17.cassette.json')
const CLEAN_ID = '01M8KT641KV9P7GYP4TQ09Y4VQ'
const SAMPLE = 220
const MAX_OUTPUT = 64 * 1024
const STACK = /^\s+at .+(:\d+:\d+\)?|\(node:[^)]*\))$/m

let dir: string
const files: Array<{ path: string; format: string; shape: string }> = []

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-bad-input-'))
  // Every 45th case, so the sample has every shape and both formats (deep and wide ones included).
  for (let i = 0; i < SAMPLE; i++) {
    const c = hostileCase(i * 45, 7)
    const path = join(dir, `case-${c.index}.${c.format === 'cassette' ? 'cassette.json' : 'agentcase'}`)
    writeFileSync(path, c.text)
    files.push({ path, format: c.format, shape: c.shape })
  }
}, 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function inProcess(rawArgs: string[]): Promise<{ out: string; code: number }> {
  let out = ''
  const capture = (...a: unknown[]) => {
    out += `${a.join(' ')}\n`
  }
  const log = vi.spyOn(console, 'log').mockImplementation(capture)
  const err = vi.spyOn(console, 'error').mockImplementation(capture)
  const before = process.exitCode
  process.exitCode = 0
  try {
    await runCommand(main, { rawArgs })
  } catch (error) {
    // citty's own usage errors are printed by runMain; anything else escaping is a failure.
    out += `ESCAPED ${(error as Error)?.stack ?? error}`
  } finally {
    log.mockRestore()
    err.mockRestore()
  }
  const code = Number(process.exitCode ?? 0)
  process.exitCode = before
  return { out, code }
}

function expectClean(out: string, what: string): void {
  expect(out, what).not.toContain('ESCAPED')
  expect(out, what).not.toContain('internal error')
  expect(out, what).not.toMatch(STACK)
  expect(out.length, what).toBeLessThan(MAX_OUTPUT)
}

describe('every command that reads a file or a store, on hostile input', () => {
  it(`the sample has ${SAMPLE} cases of every shape`, () => {
    expect(files.length).toBe(SAMPLE)
    for (const shape of ['deep', 'wide', 'long', 'swap', 'remove', 'cut'])
      expect(files.filter((f) => f.shape === shape).length).toBeGreaterThan(10)
  })

  it('validate, inspect, import and scan: typed errors only, bounded output', async () => {
    const store = join(dir, 'import-store')
    let accepted = 0
    for (const f of files) {
      const validate = await inProcess(['validate', f.path])
      expectClean(validate.out, `validate ${f.path}`)
      for (const args of [
        ['inspect', f.path],
        ['import', f.path, '--dir', store],
        ['scan', f.path, '--json'],
      ]) {
        const r = await inProcess(args)
        expectClean(r.out, `${args.join(' ')}`)
        // validate and import agree: a file validate accepts imports.
        if (args[0] === 'import') expect(r.code, f.path).toBe(validate.code)
      }
      if (validate.code === 0) accepted++
    }
    expect(accepted).toBeGreaterThan(0)
  }, 300_000)

  it('ls (rebuilding the index), show, report, check, diff and export on a store holding the case', async () => {
    const store = join(dir, 'store')
    expect((await inProcess(['import', CLEAN, '--dir', store])).code).toBe(0)
    const cassette = join(store, 'runs', `${CLEAN_ID}.cassette.json`)
    for (const f of files.filter((x) => x.format === 'cassette')) {
      copyFileSync(f.path, cassette)
      for (const args of [
        ['show', CLEAN_ID],
        ['report', CLEAN_ID],
        ['check', CLEAN_ID],
        ['diff', CLEAN_ID, CLEAN_ID],
        ['export', CLEAN_ID, '-o', join(dir, 'out.cassette.json')],
      ]) {
        const r = await inProcess([...args, '--dir', store])
        expectClean(r.out, `${args.join(' ')} with ${f.path}`)
      }
      for (const name of ['index.db', 'index.db-wal', 'index.db-shm'])
        rmSync(join(store, name), { force: true })
      const ls = await inProcess(['ls', '--dir', store])
      expectClean(ls.out, `ls with ${f.path}`)
      expect(ls.code).toBe(0)
    }
  }, 300_000)

  it('through the built bin too: no stack trace, exit 0 or 1', () => {
    mkdirSync(join(dir, 'bin'), { recursive: true })
    for (const f of files.filter((_, i) => i % 10 === 0)) {
      for (const args of [
        ['validate', f.path],
        ['inspect', f.path],
      ]) {
        const r = runBinSync(join(dir, 'bin'), {}, ...args)
        expect([0, 1], `${args.join(' ')}: ${r.stderr}`).toContain(r.code)
        expectClean(r.stdout + r.stderr, args.join(' '))
      }
    }
  }, 300_000)
})
