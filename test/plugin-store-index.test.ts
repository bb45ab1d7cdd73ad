import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BinResult, runBinSync } from './helpers/built-bin.ts'
import { type ChildRun, cassettesOf, copyProject, removeProject, runFixture } from './projects/run-fixture.ts'

// The store-index fixture project (test/projects/store-index): two agentCase tests, one failing by its
// oracle. After each Vitest run the plugin indexes the tests' cassettes in the project's store
// (.crashlab/), and the built bin, run in the project as a user would, reaches them by the id the
// annotation prints, by cassette path and by test name.
const FILE = 'orders.spec.ts'
// No store named by the environment: the store is the project's own, as for a user.
const NO_STORE = { CRASHLAB_DIR: '' }
let dir: string
let recording: ChildRun

function bin(...args: string[]): BinResult {
  return runBinSync(dir, NO_STORE, ...args)
}

function expectOk(r: BinResult): string {
  if (r.code !== 0) throw new Error(`expected exit 0, got ${r.code}:\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

/** The ref of the `npx crashlab report <ref>` command the failing test's annotation prints. */
function printedRef(output: string): string {
  const ref = /`npx crashlab report (\S+)`/.exec(output)?.[1]
  if (!ref) throw new Error(`no report command in the output:\n${output}`)
  return ref
}

function cassetteOf(test: string): { path: string; id: string } {
  const name = cassettesOf(dir, FILE).find((n) => n.includes(test))
  if (!name) throw new Error(`no cassette of ${test}: ${cassettesOf(dir, FILE).join(', ')}`)
  const path = join('__cassettes__', FILE, name)
  const { run } = JSON.parse(readFileSync(join(dir, path), 'utf8')) as { run: { id: string } }
  return { path, id: run.id }
}

beforeAll(async () => {
  dir = copyProject('store-index')
  recording = await runFixture(dir, ['run'], { env: NO_STORE })
  if (recording.code !== 1) throw new Error(`expected exit 1 (one failing test):\n${recording.output}`)
}, 120_000)
afterAll(() => removeProject(dir))

describe('the runs of a Vitest session in the store', { timeout: 120_000 }, () => {
  it('`crashlab ls --session last` lists the tests of the run by file and name', () => {
    const out = expectOk(bin('ls', '--session', 'last'))
    expect(out).toMatch(/^id\s+name\s+status.*\btest$/m)
    expect(out).toMatch(
      new RegExp(`^${cassetteOf('A17').id}\\s+order-bot\\s.*✓ ${FILE} > orders > where is A17$`, 'm'),
    )
    expect(out).toMatch(
      new RegExp(`^${cassetteOf('A18').id}\\s+order-bot\\s.*✗ ${FILE} > orders > where is A18$`, 'm'),
    )
    const json = JSON.parse(expectOk(bin('ls', '--session', 'last', '--json'))) as Array<{
      test: { file: string; name: string; state: string }
    }>
    expect(json.map((r) => [r.test.file, r.test.name, r.test.state])).toEqual([
      [FILE, 'orders > where is A17', 'passed'],
      [FILE, 'orders > where is A18', 'failed'],
    ])
  })

  it("the failing test's annotation prints a command that works through the built bin", () => {
    const ref = printedRef(recording.output)
    expect(ref).toBe(cassetteOf('A18').id)
    const out = expectOk(bin('report', ref))
    expect(out).toContain(`order-bot · ${ref}`)
    expect(out).toContain('says-shipped')
  })

  it('`crashlab show` takes a cassette path or a test\'s full name ("file > describe > test")', () => {
    const a17 = cassetteOf('A17')
    const byPath = expectOk(bin('show', a17.path))
    expect(byPath).toContain(a17.id)
    expect(byPath).toContain(`test ${FILE} > orders > where is A17 · passed`)
    const byName = expectOk(bin('show', `${FILE} > orders > where is A18`))
    expect(byName).toContain(cassetteOf('A18').id)
    expect(expectOk(bin('show', 'orders > where is A18'))).toContain(cassetteOf('A18').id)
    const missing = bin('show', 'orders > where is A19')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('E_RUN_NOT_FOUND')
    expect(missing.stderr).toContain('`crashlab ls --session last`')
  })

  it('a replayed failing test prints the id of its cassette, and the command reports it', async () => {
    const replay = await runFixture(dir, ['run'], { ci: true, env: NO_STORE })
    expect(replay.code).toBe(1)
    expect(replay.output).toContain('2 replayed')
    const ref = printedRef(replay.output)
    expect(ref).toBe(cassetteOf('A18').id)
    expect(expectOk(bin('report', ref))).toContain(`order-bot · ${ref}`)
    const sessions = JSON.parse(expectOk(bin('ls', '--sessions', '--json'))) as unknown[]
    expect(sessions).toHaveLength(2)
    // Both sessions ran the same cassettes: each lists them.
    const last = JSON.parse(expectOk(bin('ls', '--session', 'last', '--json'))) as Array<{ id: string }>
    expect(last.map((r) => r.id)).toEqual([cassetteOf('A17').id, cassetteOf('A18').id])
  })

  it('keeps as many sessions as the plugin is told, dropping older ones but never a cassette', async () => {
    const run = await runFixture(dir, ['run'], { ci: true, env: { ...NO_STORE, FIXTURE_KEEP_SESSIONS: '1' } })
    expect(run.code).toBe(1)
    const sessions = JSON.parse(expectOk(bin('ls', '--sessions', '--json'))) as Array<{ runs: number }>
    expect(sessions).toHaveLength(1)
    expect(sessions[0]?.runs).toBe(2)
    expect(cassettesOf(dir, FILE)).toHaveLength(2)
  })
})
