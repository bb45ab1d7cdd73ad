import { statSync } from 'node:fs'
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

// The diverged fixture project (test/projects/diverged): a five-call agentCase test with a refund (a
// side effect) after the second call, whose fourth prompt FIXTURE_LATE_PROMPT changes, and a one-call
// test that never changes. Each child is a real Vitest, run on a copy of the project.
const FILE = 'diverged.spec.ts'
const LONG = 'long run.cassette.json'
const SHORT = 'short run.cassette.json'
const CHANGED = { FIXTURE_LATE_PROMPT: 'Thanks. One more question?' }
const copies: string[] = []
let seeded: string
let seededText: { long: string; short: string }

function copy(from: string, withCassettes: boolean): string {
  const dir = copyProject(from, { withCassettes })
  copies.push(dir)
  return dir
}

/** The elements of the cassette's `run.steps`, each as the file writes it. */
function stepTexts(text: string): string[] {
  const start = text.indexOf('\n    "steps": [\n')
  const end = text.indexOf('\n    ],\n', start)
  if (start < 0 || end < 0) throw new Error(`no steps array in:\n${text}`)
  return text.slice(start + '\n    "steps": [\n'.length, end).split(/(?<=\n {6}\}),\n(?= {6}\{\n)/)
}

/** The file's text from `"steps": [` to the end of step `last`. */
function stepsUpTo(text: string, last: number): string {
  const steps = stepTexts(text)
  const from = text.indexOf('"steps": [')
  const lastText = steps[last]!
  return text.slice(from, text.indexOf(lastText, from) + lastText.length)
}

beforeAll(async () => {
  // Mode diverged with no cassette records, as `missing` does.
  seeded = copy('diverged', false)
  const run = await runFixture(seeded, ['--record=diverged', 'run'], { bin: 'crashlab' })
  expectExit(run, 0)
  expect(run.output).toContain('cassettes: 2 recorded · 0 replayed (mode diverged)')
  expect(cassettesOf(seeded, FILE)).toEqual([LONG, SHORT])
  seededText = { long: readCassette(seeded, FILE, LONG), short: readCassette(seeded, FILE, SHORT) }
}, 60_000)
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

describe('record mode diverged (npx crashlab vitest --record=diverged)', { timeout: 60_000 }, () => {
  it('`diverged` keeps the prefix byte-identical: only the steps from the changed prompt on are new', async () => {
    const dir = copy(seeded, true)
    const shortPath = join(dir, '__cassettes__', FILE, SHORT)
    const shortMtime = statSync(shortPath).mtimeMs
    const run = await runFixture(dir, ['--record=diverged', 'run'], { bin: 'crashlab', env: CHANGED })
    expectExit(run, 0)
    expect(run.output).toContain('cassettes: 1 recorded · 1 replayed (mode diverged)')
    // Only the fourth and fifth model calls reached the provider; the refund before them never ran again.
    expect(run.log).toEqual([{ requests: 2, refunds: 0 }])

    const before = seededText.long
    const after = readCassette(dir, FILE, LONG)
    const [old, now] = [stepTexts(before), stepTexts(after)]
    expect(old).toHaveLength(6)
    expect(now).toHaveLength(6)
    // Steps 0-3 (three model calls and the refund): the same bytes, in the same place of the steps array.
    expect(stepsUpTo(after, 3)).toBe(stepsUpTo(before, 3))
    expect(now[4]).not.toBe(old[4])
    expect(now[5]).not.toBe(old[5])
    expect(now[4]).toContain('Thanks. One more question?')
    // The same run, continued: its id and start did not change.
    const [a, b] = [JSON.parse(before).run, JSON.parse(after).run]
    expect(b.id).toBe(a.id)
    expect(b.startedAt).toBe(a.startedAt)
    // Outside the steps, only what sums the run up changed.
    const changed = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    expect(changed.filter((k) => !['steps', 'endedAt', 'usage', 'cost', 'output'].includes(k))).toEqual([])
    // The test that did not change: its cassette was not written at all.
    expect(readCassette(dir, FILE, SHORT)).toBe(seededText.short)
    expect(statSync(shortPath).mtimeMs).toBe(shortMtime)

    // Run again with the same change: the new cassette matches fully, nothing is written.
    const longMtime = statSync(join(dir, '__cassettes__', FILE, LONG)).mtimeMs
    const again = await runFixture(dir, ['--record=diverged', 'run'], { bin: 'crashlab', env: CHANGED })
    expectExit(again, 0)
    expect(again.output).toContain('cassettes: 0 recorded · 2 replayed (mode diverged)')
    expect(again.log).toEqual([{ requests: 0, refunds: 0 }])
    expect(readCassette(dir, FILE, LONG)).toBe(after)
    expect(statSync(join(dir, '__cassettes__', FILE, LONG)).mtimeMs).toBe(longMtime)
  })

  it('with no change nothing reaches the provider and no cassette is rewritten', async () => {
    const dir = copy(seeded, true)
    const run = await runFixture(dir, ['--record=diverged', 'run'], { bin: 'crashlab' })
    expectExit(run, 0)
    expect(run.output).toContain('cassettes: 0 recorded · 2 replayed (mode diverged)')
    expect(run.log).toEqual([{ requests: 0, refunds: 0 }])
    expect(readCassette(dir, FILE, LONG)).toBe(seededText.long)
    expect(readCassette(dir, FILE, SHORT)).toBe(seededText.short)
  })
})

describe.concurrent('the other switches select diverged too', { timeout: 60_000 }, () => {
  const switches: Array<[string, string[], Record<string, string>]> = [
    ['CRASHLAB_RECORD=diverged', ['run'], { CRASHLAB_RECORD: 'diverged' }],
    ['vitest run -- --record=diverged', ['run', '--', '--record=diverged'], {}],
    ['vitest --mode record:diverged', ['run', '--mode', 'record:diverged'], {}],
  ]
  for (const [label, args, env] of switches) {
    it(label, async () => {
      const dir = copy(seeded, true)
      const run = await runFixture(dir, args, { env: { ...env, ...CHANGED }, ci: true })
      expectExit(run, 0)
      expect(run.output).toContain('cassettes: 1 recorded · 1 replayed (mode diverged)')
      expect(run.log).toEqual([{ requests: 2, refunds: 0 }])
      expect(stepsUpTo(readCassette(dir, FILE, LONG), 3)).toBe(stepsUpTo(seededText.long, 3))
      expect(readCassette(dir, FILE, SHORT)).toBe(seededText.short)
    })
  }
})
