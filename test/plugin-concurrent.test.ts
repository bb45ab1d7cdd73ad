import { afterAll, describe, expect, it } from 'vitest'
import { cassettesOf, copyProject, readCassette, removeProject, runFixture } from './projects/run-fixture.ts'

// test/projects/concurrent: 24 `test.concurrent` agent tests in one file, calls interleaved by latency.
const FILE = 'concurrent.spec.ts'
const copies: string[] = []
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

describe.concurrent.for([
  ['wrap(client)', {}],
  ['the MSW interceptor', { FIXTURE_INTERCEPT: '1' }],
] as const)('through %s', ([, env]) => {
  it('gives each of 24 concurrent tests its own Session and cassette, over a recording and a replay', {
    timeout: 90_000,
  }, async () => {
    const dir = copyProject('concurrent')
    copies.push(dir)
    const recorded = await runFixture(dir, ['run'], { env })
    if (recorded.code !== 0) throw new Error(recorded.output)
    expect(recorded.output).toContain('cassettes: 24 recorded · 0 replayed (mode missing)')
    expect(recorded.log).toEqual([{ requests: 72, refunds: 24 }])

    const files = cassettesOf(dir, FILE)
    expect(files).toHaveLength(24)
    for (let i = 0; i < 24; i++) {
      const name = `24 refunds at once › ticket ${i}.cassette.json`
      expect(files).toContain(name)
      const run = (JSON.parse(readCassette(dir, FILE, name)) as { run: { input: string; steps: unknown[] } })
        .run
      // Its own input, and only its own calls: every step mentions its ticket and no other.
      expect(run.input).toMatch(new RegExp(`ticket #${i}$`))
      expect(run.steps).toHaveLength(5)
      const tickets = new Set(JSON.stringify(run.steps).match(/ticket #\d+/g))
      expect([...tickets]).toEqual([`ticket #${i}`])
    }

    const replayed = await runFixture(dir, ['run'], { ci: true, env })
    if (replayed.code !== 0) throw new Error(replayed.output)
    expect(replayed.output).toContain('cassettes: 0 recorded · 24 replayed (mode replay)')
    expect(replayed.output).toMatch(/Tests\s+24 passed/)
    expect(replayed.log).toEqual([{ requests: 0, refunds: 0 }])
  })
})
