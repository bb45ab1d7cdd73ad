import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ChildRun,
  cassettesOf,
  copyProject,
  expectExit,
  readCassette,
  removeProject,
  runFixture,
} from './projects/run-fixture.ts'

// The options fixture project (test/projects/options): the plugin's `redaction` and `matching` options,
// and tests that opt out of recording with `live()`. Each child is a real Vitest.
const FILE = 'options.spec.ts'
const REDACTED = 'a custom token and a hook are redacted from the cassette.cassette.json'
const MATCHED = 'a new trace id and a new date still replay.cassette.json'
const BACK_IN = 'a live describe › a test can opt back in.cassette.json'
const copies: string[] = []
let seeded: string
let recording: ChildRun

function copy(from: string, withCassettes: boolean): string {
  const dir = copyProject(from, { withCassettes })
  copies.push(dir)
  return dir
}

beforeAll(async () => {
  seeded = copy('options', false)
  recording = await runFixture(seeded, ['run'])
  expectExit(recording, 0)
}, 60_000)
afterAll(() => {
  for (const dir of copies) removeProject(dir)
})

describe.concurrent('plugin options and live tests', { timeout: 60_000 }, () => {
  it('records only the tests that are not live', () => {
    expect(cassettesOf(seeded, FILE)).toEqual([REDACTED, MATCHED, BACK_IN].sort())
    expect(recording.log).toEqual([{ requests: 5, live: 2 }])
    expect(recording.output).toContain('cassettes: 3 recorded · 0 replayed (mode missing)')
    // The live agentCase's oracle needs its one model call captured in memory: the run passed.
    expect(recording.output).toMatch(/Tests\s+5 passed/)
  })

  it('a plugin-level pattern, key and hook module redact the written cassette', () => {
    const text = readCassette(seeded, FILE, REDACTED)
    expect(text).not.toContain('ACME-123456')
    expect(text).not.toContain('tenant-bluebird')
    expect(text).not.toContain('secret-tenant')
    expect(text).toContain('My ticket [REDACTED:acme-ticket] for [REDACTED:tenant]')
    expect(text).toContain('"x_tenant": "[REDACTED:sensitive-key]"')
  })

  it('replay under CI=true: an ignored param and a normalized date match, live tests reach the provider', async () => {
    const dir = copy(seeded, true)
    const run = await runFixture(dir, ['run'], { ci: true, env: { FIXTURE_DATE: '2027-01-15' } })
    expectExit(run, 0)
    expect(run.output).toMatch(/Tests\s+5 passed/)
    expect(run.output).toContain('cassettes: 0 recorded · 3 replayed (mode replay)')
    // Only the two live tests called the provider; the replayed ones made zero requests.
    expect(run.log).toEqual([{ requests: 2, live: 2 }])
    expect(
      existsSync(join(dir, '__cassettes__', FILE, 'a live test reaches the provider.cassette.json')),
    ).toBe(false)
  })

  it('without the matching option the same replay diverges', async () => {
    const dir = copy(seeded, true)
    const run = await runFixture(dir, ['run'], {
      ci: true,
      env: { FIXTURE_DATE: '2027-01-15', FIXTURE_NO_MATCHING: '1' },
    })
    expectExit(run, 1)
    expect(run.output).toContain('diverged at step 0')
    expect(run.output).toMatch(/x_trace_id|Today is/)
    // The recorded tests put the date in the system prompt; the live ones pass.
    expect(run.output).toMatch(/Tests\s+3 failed \| 2 passed/)
  })
})
