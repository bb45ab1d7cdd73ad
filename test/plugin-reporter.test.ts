import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ChildRun,
  cassettesOf,
  copyProject,
  expectExit,
  removeProject,
  runFixture,
} from './projects/run-fixture.ts'

// The report fixture project (test/projects/report): two agentCase tests that record or replay, one
// live() agentCase test, one test that touches no model. Each child is a real Vitest; the assertions
// read crashlab's summary line and run table from its output.
const FILE = 'report.spec.ts'
const copies: string[] = []
let seeded: string
let recording: ChildRun

function copy(from = 'report', withCassettes = false): string {
  const dir = copyProject(from, { withCassettes })
  copies.push(dir)
  return dir
}

/** The table's lines: the header and the rows under it, up to the total line. */
function table(output: string): string[] {
  const lines = output.split('\n')
  const start = lines.findIndex((l) => /^ {2}test\s+outcome\s+steps\s+tokens\s+cost\s+findings$/.test(l))
  if (start < 0) return []
  const end = lines.findIndex((l, i) => i > start && l.startsWith('  total:'))
  return lines.slice(start, end < 0 ? undefined : end + 1)
}

beforeAll(async () => {
  seeded = copy()
  recording = await runFixture(seeded, ['run'])
  expectExit(recording, 0)
}, 60_000)
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

describe.concurrent('the crashlab reporter', { timeout: 60_000 }, () => {
  it('counts the live test, records no cassette for it, and shows a table row per agent run', () => {
    expect(recording.output).toContain('1 live · cassettes: 2 recorded · 0 replayed (mode missing)')
    expect(cassettesOf(seeded, FILE)).toEqual([
      'clean refund.cassette.json',
      'refund within policy.cassette.json',
    ])
    const rows = table(recording.output)
    expect(rows).toHaveLength(5)
    for (const name of ['clean refund', 'refund within policy', 'live smoke'])
      expect(rows.join('\n')).toMatch(
        new RegExp(`^ {2}✓ ${name}\\s+pass\\s+5\\s+[\\d,]+\\s+(—|\\$[\\d.]+)\\s+\\S`, 'm'),
      )
    expect(rows.join('\n')).not.toContain('calls no model')
    expect(rows.at(-1)).toMatch(/^ {2}total: 3 runs · [\d,]+ tokens/)
  })

  it('a cassette left by a test that is live now is reported stale, not unused', async () => {
    const dir = copy(seeded, true)
    writeFileSync(join(dir, '__cassettes__', FILE, 'live smoke.cassette.json'), '{}')
    const run = await runFixture(dir, ['run'], { ci: true })
    expectExit(run, 0)
    expect(run.output).toContain('1 live · cassettes: 0 recorded · 2 replayed · 1 stale (mode replay)')
    expect(run.output).toContain(`stale (test is live): __cassettes__/${FILE}/live smoke.cassette.json`)
    expect(run.output).not.toContain('unused')
    // Only the live test reached the provider: three model calls of one refund run.
    expect(run.log).toEqual([{ requests: 3, refunds: 1 }])
  })

  it('a failing run comes first in the table, with its outcome', async () => {
    const dir = copy(seeded, true)
    const run = await runFixture(dir, ['run'], { ci: true, env: { FIXTURE_EXTRA_ORACLE: '1' } })
    expectExit(run, 1)
    const rows = table(run.output)
    expect(rows[1]).toMatch(/^ {2}✗ refund within policy\s+fail\s+5\s/)
    expect(rows.slice(2, 4).map((r) => r.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      '✓ clean refund',
      '✓ live smoke',
    ])
  })

  it('mode off: the tests that called a model are counted live, nothing else about cassettes', async () => {
    const run = await runFixture(copy(), ['run'], { env: { CRASHLAB_RECORD: 'off' } })
    expectExit(run, 0)
    expect(run.output).toContain(' crashlab  3 live, no cassette read or written (mode off)')
    expect(run.output).not.toContain('cassettes:')
    expect(table(run.output)).toHaveLength(5)
  })

  it('stays silent when no test touched crashlab', async () => {
    const run = await runFixture(copy(seeded, true), ['run', '-t', 'calls no model'], { ci: true })
    expectExit(run, 0)
    expect(run.output).toMatch(/Tests\s+1 passed \| 3 skipped/)
    expect(run.output).not.toContain(' crashlab ')
    expect(table(run.output)).toEqual([])
  })
})
