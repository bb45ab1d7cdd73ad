import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cassettesOf,
  copyProject,
  expectExit,
  readCassette,
  removeProject,
  runFixture,
} from './projects/run-fixture.ts'

// The refund fixture project (test/projects/refund): an agentCase test, an `agent` fixture test that
// replays its own run, and a test with no agent. Each child is a real Vitest; cassette-writing runs
// work on copies.
const FILE = 'refund.spec.ts'
const CASSETTES = ['clean refund.cassette.json', 'fixture%3A refund, then replay it offline.cassette.json']
const copies: string[] = []
let seeded: string

function copy(from = 'refund', withCassettes = false): string {
  const dir = copyProject(from, { withCassettes })
  copies.push(dir)
  return dir
}

function runId(dir: string, name: string): string {
  return (JSON.parse(readCassette(dir, FILE, name)) as { run: { id: string } }).run.id
}

beforeAll(async () => {
  // One recorded copy: the starting point of the replay and re-record runs.
  seeded = copy()
  expectExit(await runFixture(seeded, ['run']), 0)
}, 60_000)
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

describe.concurrent('the crashlab plugin, by mode', { timeout: 60_000 }, () => {
  it('missing (the local default) records each test that calls a model, and only those', () => {
    expect(cassettesOf(seeded, FILE)).toEqual(CASSETTES)
    const text = readCassette(seeded, FILE, CASSETTES[0]!)
    expect(text).toContain('"format": "crashlab.cassette"')
    expect(text).not.toContain('sk-fixture-not-a-key')
  })

  it('replay under CI=true: no cassette fails the test with the command that records it', async () => {
    const dir = copy()
    const run = await runFixture(dir, ['run'], { ci: true })
    expectExit(run, 1)
    expect(run.output).toContain('E_CASSETTE_MISSING')
    expect(run.output).toContain('has no cassette at')
    expect(run.output).toContain('npx crashlab vitest --record=missing')
    expect(run.output).toMatch(/Tests\s+2 failed \| 1 passed/)
    expect(run.output).toContain('2 missing')
    expect(existsSync(join(dir, '__cassettes__'))).toBe(false)
  })

  it('replay under CI=true with cassettes: zero provider requests, no side effect, nothing rewritten', async () => {
    const dir = copy(seeded, true)
    const before = CASSETTES.map((c) => readCassette(dir, FILE, c))
    const run = await runFixture(dir, ['run'], { ci: true })
    expectExit(run, 0)
    expect(run.output).toContain('cassettes: 0 recorded · 2 replayed (mode replay)')
    expect(run.log).toEqual([{ requests: 0, refunds: 0 }])
    expect(CASSETTES.map((c) => readCassette(dir, FILE, c))).toEqual(before)
  })

  it('missing replays existing cassettes and records only the missing one', async () => {
    const dir = copy(seeded, true)
    const kept = readCassette(dir, FILE, CASSETTES[0]!)
    rmSync(join(dir, '__cassettes__', FILE, CASSETTES[1]!))
    const run = await runFixture(dir, ['run'])
    expectExit(run, 0)
    expect(run.output).toContain('cassettes: 1 recorded · 1 replayed (mode missing)')
    expect(cassettesOf(dir, FILE)).toEqual(CASSETTES)
    expect(readCassette(dir, FILE, CASSETTES[0]!)).toBe(kept)
  })

  it('a divergence the agent swallows still fails the test', async () => {
    const dir = copy(seeded, true)
    const run = await runFixture(dir, ['run'], { ci: true, env: { FIXTURE_INPUT_SUFFIX: ' Thanks!' } })
    expectExit(run, 1)
    expect(run.output).toContain('DivergenceError')
    expect(run.output).toContain('diverged at step 0')
    expect(run.output).toMatch(/Tests\s+2 failed \| 1 passed/)
    expect(run.log).toEqual([{ requests: 0, refunds: 0 }])
  })

  it('an oracle that fails fails the test, listing each failed check; the annotation sums the run up', async () => {
    const dir = copy(seeded, true)
    const run = await runFixture(dir, ['run'], { ci: true, env: { FIXTURE_EXTRA_ORACLE: '1' } })
    expectExit(run, 1)
    expect(run.output).toContain('agent "refund-bot" failed 1 of 2 checks:')
    expect(run.output).toContain('✖ noRefundAtAll: a refund was issued')
    expect(run.output).toContain('refund-bot: 5 steps (3 llm, 2 tool) ·')
    expect(run.output).toContain('checks fail (1/2) · replayed')
    expect(run.output).toMatch(/Tests\s+1 failed \| 2 passed/)
  })

  it('off passes every call through and writes nothing', async () => {
    const dir = copy()
    const run = await runFixture(dir, ['run'], { env: { CRASHLAB_RECORD: 'off' } })
    expectExit(run, 0)
    expect(existsSync(join(dir, '__cassettes__'))).toBe(false)
    expect(run.log[0]?.requests).toBeGreaterThan(0)
    expect(run.output).not.toContain('cassettes:')
  })

  it('CI=true with -u records the missing cassettes', async () => {
    const dir = copy()
    const run = await runFixture(dir, ['run', '-u'], { ci: true })
    expectExit(run, 0)
    expect(run.output).toContain('cassettes: 2 recorded · 0 replayed (mode missing)')
    expect(cassettesOf(dir, FILE)).toEqual(CASSETTES)
  })

  it('reports cassette files no test owns', async () => {
    const dir = copy(seeded, true)
    writeFileSync(join(dir, '__cassettes__', FILE, 'renamed test.cassette.json'), '{}')
    const run = await runFixture(dir, ['run'], { ci: true })
    expectExit(run, 0)
    expect(run.output).toContain('2 replayed · 1 unused')
    expect(run.output).toContain(`unused: __cassettes__/${FILE}/renamed test.cassette.json`)
  })

  it('rejects an unknown CRASHLAB_RECORD value, naming the modes', async () => {
    const run = await runFixture(copy(), ['run'], { env: { CRASHLAB_RECORD: 'sometimes' } })
    expectExit(run, 1)
    expect(run.output).toContain('CRASHLAB_RECORD is "sometimes", which is not a record mode')
  })
})

describe.concurrent('the record switches re-record every cassette (mode all)', { timeout: 60_000 }, () => {
  const switches: Array<[string, string[], Record<string, string>, 'vitest' | 'crashlab']> = [
    ['vitest --mode record', ['run', '--mode', 'record'], {}, 'vitest'],
    ['vitest run -- --record', ['run', '--', '--record'], {}, 'vitest'],
    ['CRASHLAB_RECORD=all', ['run'], { CRASHLAB_RECORD: 'all' }, 'vitest'],
    ['crashlab vitest --record', ['--record', 'run', '--reporter=dot'], {}, 'crashlab'],
  ]
  for (const [label, args, env, bin] of switches) {
    it(label, async () => {
      const dir = copy(seeded, true)
      const before = CASSETTES.map((c) => runId(dir, c))
      const run = await runFixture(dir, args, { env, bin, ci: true })
      expectExit(run, 0)
      expect(run.output).toContain('cassettes: 2 recorded · 0 replayed (mode all)')
      const after = CASSETTES.map((c) => runId(dir, c))
      for (let i = 0; i < CASSETTES.length; i++) expect(after[i]).not.toBe(before[i])
      expect(run.log[0]?.requests).toBeGreaterThan(0)
    })
  }

  it('crashlab vitest --record=missing records only what is missing, and passes the exit code', async () => {
    const dir = copy()
    const run = await runFixture(dir, ['--record=missing', 'run'], { bin: 'crashlab', ci: true })
    expectExit(run, 0)
    expect(run.output).toContain('cassettes: 2 recorded · 0 replayed (mode missing)')
    const failing = await runFixture(dir, ['run', '--no-such-flag'], { bin: 'crashlab' })
    expect(failing.code).not.toBe(0)
    const bad = await runFixture(dir, ['--record=sometimes', 'run'], { bin: 'crashlab' })
    expectExit(bad, 2)
    expect(bad.output).toContain('--record=sometimes is not a record mode')
  })
})
