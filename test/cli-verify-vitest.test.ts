import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/index.ts'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { runBin } from './helpers/built-bin.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'
import { RULE, supportModel } from './projects/verify/model.ts'
import { recordSupportRun, saveWithRuleFix } from './projects/verify/record-support.ts'

// `crashlab verify --vitest`: every fork its own Vitest task, the verdict drawn by crashlab's reporter
// from the tasks' meta; two shards with blob reports merged give the verdicts of one run.
type Verification = NonNullable<Run['fixes'][number]['verification']>

let provider: ScriptedProvider
let project: string
let storeDir: string
let failing: Run
let good: Run

const recordSupport = (rule?: string) =>
  recordSupportRun({ providerUrl: provider.url, project, storeDir, ...(rule && { rule }) })

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: supportModel(1) })
  project = copyProject('verify')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-verify-vitest-'))
  failing = await recordSupport()
  good = await recordSupport(RULE)
  await saveWithRuleFix(storeDir, failing)
}, 60_000)
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

const env = () => ({ CRASHLAB_DIR: storeDir })
const common = () => ['--fix', 'fix-1', '--base-url', provider.url, '--slots', '4']

async function storedVerification(): Promise<Verification> {
  const store = await openStore({ dir: storeDir })
  try {
    return store.load(failing.id).fixes[0]?.verification as Verification
  } finally {
    store.close()
  }
}

describe('crashlab verify --vitest', () => {
  let single: Verification

  it('runs every fork as its own Vitest task, in rounds, and draws the verdict from the tasks: one round of five pairs decides it', async () => {
    const r = await runBin(project, env(), [
      'verify',
      failing.id,
      ...common(),
      '--regress',
      'none',
      '--vitest',
    ])
    expect(r.code).toBe(0)
    // One round: ten tasks in Vitest's output, spread over four task files; five wins decide it, so no
    // second round runs.
    expect(r.stdout).toContain('round 1: 10 forks (0 run so far, at most 40)')
    expect(r.stdout).not.toContain('round 2')
    expect(r.stdout).toMatch(/Test Files\s+4 passed \(4\)/)
    expect(r.stdout).toMatch(/Tests\s+10 passed \(10\)/)
    expect(r.stdout).toContain(`VERIFIED fix-1 of ${failing.id}`)
    expect(r.stdout).toContain('5 trials per arm of at most 20: stopped once decided')
    single = await storedVerification()
    expect(single).toMatchObject({ verdict: 'VERIFIED', stopped: 'decided', k: 20 })
    expect(single.patched).toMatchObject({ trials: 5, passed: 5 })
    expect(single.control).toMatchObject({ trials: 5, passed: 0, failed: 5 })
  }, 120_000)

  it('goes on to another round while the verdict is undecided, and stops at the budget', async () => {
    // The control names the order 7 times in 10 without the rule: five pairs cannot decide it (that
    // would take five wins in a row, 0.3^5 ≈ 0.2 %), so a second round runs, the last of a budget of 10.
    const leaky = await startScriptedProvider({ policy: supportModel(1, { unprompted: 0.7 }) })
    try {
      const r = await runBin(project, env(), [
        'verify',
        failing.id,
        '--fix',
        'fix-1',
        '--base-url',
        leaky.url,
        '--slots',
        '4',
        '-k',
        '10',
        '--regress',
        'none',
        '--vitest',
      ])
      expect(r.stdout).toContain('round 1: 10 forks (0 run so far, at most 20)')
      expect(r.stdout).toContain('round 2: 10 forks (10 run so far, at most 20)')
      const v = await storedVerification()
      expect(v.patched).toMatchObject({ trials: 10, passed: 10 })
      expect(v.control?.trials).toBe(10)
      expect(v.stopped).toBeNull()
      // Ten wins of ten against a control that passes 7 times in 10: never worse, whether or not the
      // wins were enough to decide.
      expect(v.verdict).not.toBe('REJECTED')
      expect(r.code).toBe(v.verdict === 'VERIFIED' ? 0 : 1)
      expect(r.stdout).not.toContain('round 3')
    } finally {
      await leaky.close()
    }
  }, 180_000)

  // Four whole Vitest runs, one after the other: the timeout is a safety net, not a speed goal.
  it('two shards with blob reports, merged, give the verdicts of one run (with a regression: REJECTED)', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'crashlab-verify-blobs-'))
    try {
      // One run first, with the past good run: the duplicated rule breaks it. A budget of 5: the single
      // run's one round is the whole plan, which the shards run as a fixed k.
      const one = await runBin(project, env(), [
        'verify',
        failing.id,
        ...common(),
        '-k',
        '5',
        '--regress',
        good.id,
        '--vitest',
      ])
      expect(one.code).toBe(1)
      const whole = await storedVerification()
      expect(whole.verdict).toBe('REJECTED')
      for (const shard of ['1/2', '2/2']) {
        const r = await runBin(project, env(), [
          'verify',
          failing.id,
          ...common(),
          '-k',
          '5',
          '--regress',
          good.id,
          '--vitest',
          '--shard',
          shard,
          '--reporter',
          'blob',
          '--output-file',
          join(reports, `blob-${shard.replace('/', '-')}.json`),
        ])
        expect(r.code, r.stdout + r.stderr).toBe(0)
        expect(r.stdout).toContain(`shard ${shard} done`)
        expect(r.stdout).toContain(
          `shard ${shard}: a sharded verification keeps a fixed k (5 trials per arm, 20 forks in all, no early stop)`,
        )
      }
      expect(readdirSync(reports).sort()).toEqual(['blob-1-2.json', 'blob-2-2.json'])
      const merged = await runBin(project, env(), [
        'verify',
        failing.id,
        '--fix',
        'fix-1',
        '--merge-reports',
        reports,
      ])
      expect(merged.code).toBe(1)
      const fromShards = await storedVerification()
      const comparable = (v: Verification) => ({
        verdict: v.verdict,
        reason: v.reason,
        patched: v.patched,
        control: v.control,
        outcomes: v.trials.map((t) => [t.arm, t.from, t.outcome]),
      })
      expect(comparable(fromShards)).toEqual(comparable(whole))
      expect(fromShards.trials).toHaveLength(20)
      expect(fromShards.fixedK).toBe(true)
      expect(merged.stdout).toContain('a fixed k of 5 trials per arm, planned whole (no early stop)')
    } finally {
      rmSync(reports, { recursive: true, force: true })
    }
  }, 180_000)
})
