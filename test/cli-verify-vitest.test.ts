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
const common = () => ['--fix', 'fix-1', '-k', '3', '--base-url', provider.url, '--slots', '4']

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

  it('runs every fork as its own Vitest task and draws the verdict from the tasks', async () => {
    const r = await runBin(project, env(), [
      'verify',
      failing.id,
      ...common(),
      '--regress',
      'none',
      '--vitest',
    ])
    expect(r.code).toBe(0)
    // Six tasks in Vitest's output, spread over four task files.
    expect(r.stdout).toMatch(/Test Files\s+4 passed \(4\)/)
    expect(r.stdout).toMatch(/Tests\s+6 passed \(6\)/)
    expect(r.stdout).toContain(`VERIFIED fix-1 of ${failing.id}`)
    single = await storedVerification()
    expect(single.verdict).toBe('VERIFIED')
    expect(single.patched).toMatchObject({ trials: 3, passed: 3 })
    expect(single.control).toMatchObject({ trials: 3, passed: 0, failed: 3 })
  })

  // Four whole Vitest runs, one after the other: the timeout is a safety net, not a speed goal.
  it('two shards with blob reports, merged, give the verdicts of one run (with a regression: REJECTED)', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'crashlab-verify-blobs-'))
    try {
      // One run first, with the past good run: the duplicated rule breaks it.
      const one = await runBin(project, env(), [
        'verify',
        failing.id,
        ...common(),
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
      expect(fromShards.trials).toHaveLength(7)
    } finally {
      rmSync(reports, { recursive: true, force: true })
    }
  }, 180_000)
})
