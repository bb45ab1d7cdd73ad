import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { runBin, runBinSync } from './helpers/built-bin.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'
import { RULE, supportModel } from './projects/verify/model.ts'
import { recordSupportRun, saveWithRuleFix } from './projects/verify/record-support.ts'

// `crashlab verify` through the built bin, against the verify fixture (a support bot whose model names
// the order only when the system prompt asks it to). The forks' live calls go to a scripted provider
// in this process, so the bin runs asynchronously.
const FIX = { kind: 'system_prompt', op: 'append', text: RULE } as const

let provider: ScriptedProvider
let project: string
let storeDir: string
let failing: Run

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: supportModel(1) })
  project = copyProject('verify')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-cli-verify-'))
  failing = await recordSupportRun({ providerUrl: provider.url, project, storeDir })
  await saveWithRuleFix(storeDir, failing)
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

const env = () => ({ CRASHLAB_DIR: storeDir })

describe('crashlab verify', () => {
  it('runs patched forks against controls until decided, prints both arms with their intervals and pass^5, and exits 0 on VERIFIED', async () => {
    const r = await runBin(project, env(), [
      'verify',
      failing.id,
      '--fix',
      'fix-1',
      '--regress',
      'none',
      '--base-url',
      provider.url,
    ])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/arm\s+trials\s+passed\s+failed\s+errored\s+pass rate\s+95% CI\s+pass\^5/)
    // Five pairs of a budget of 20 decide it: five wins in a row reach 1/α.
    expect(r.stdout).toMatch(/patched\s+5\s+5\s+0\s+0\s+100%\s+57%–100%\s+100%/)
    expect(r.stdout).toMatch(/control\s+5\s+0\s+5\s+0\s+0%\s+0%–43%\s+0%/)
    expect(r.stdout).toContain(
      '5 trials per arm of at most 20: stopped once decided, e-value 25 (VERIFIED at 20)',
    )
    expect(r.stdout).toContain(
      'VERIFIED fix-1: patched 5/5 against control 0/5: better at the 5 % level after 5 pairs',
    )
    expect(r.stdout).toContain(`crashlab export-test ${failing.id} --fix fix-1`)
    // Progress: one line per fork when stderr is not a terminal, out of the budget.
    expect(r.stderr.trim().split('\n')).toHaveLength(10)
    expect(r.stderr).toContain('10/40')
    // Stored with the run: `show` lists the verdict.
    const shown = runBinSync(project, env(), 'show', failing.id, '--json')
    const stored = JSON.parse(shown.stdout) as Run
    expect(stored.fixes[0]?.verification).toMatchObject({ verdict: 'VERIFIED', stopped: 'decided', k: 20 })
  })

  it('takes a patch file, --no-control and --json', async () => {
    const file = join(storeDir, 'name-the-order.json')
    writeFileSync(file, JSON.stringify(FIX))
    const r = await runBin(project, env(), [
      'verify',
      failing.id,
      '--fix',
      file,
      '-k',
      '2',
      '--no-control',
      '--regress',
      'none',
      '--base-url',
      provider.url,
      '--json',
    ])
    const v = JSON.parse(r.stdout) as NonNullable<Run['fixes'][number]['verification']>
    expect(v.control).toBeNull()
    expect(v.patched).toMatchObject({ trials: 2, passed: 2 })
    // 2 of 2 without a control: a budget of 2 can never reach 1/α, so only LIKELY, and exit 1.
    expect(v.verdict).toBe('LIKELY')
    expect(r.code).toBe(1)
  })

  it('a patch that breaks a past good run: REJECTED, exit 1, the run named with its pass rates with and without the patch', async () => {
    const good = await recordSupportRun({ providerUrl: provider.url, project, storeDir, rule: RULE })
    expect(good.outcome).toBe('pass')
    const r = await runBin(project, env(), [
      'verify',
      failing.id,
      '--fix',
      'fix-1',
      '--regress',
      good.id,
      '--base-url',
      provider.url,
    ])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('past good runs (1), passed with the patch / without:')
    expect(r.stdout).toContain(`${good.id} 0/5 / 5/5`)
    expect(r.stdout).toMatch(
      /REJECTED fix-1: the patch broke 1 past good run: \S+ \(0\/5 with the patch, 5\/5 without\)/,
    )
  })

  it('bad input: an unknown fix, a bad -k, a run that did not pass given as a good run', () => {
    const unknown = runBinSync(project, env(), 'verify', failing.id, '--fix', 'fix-7')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('--fix fix-7: run')
    expect(unknown.stderr).toContain('it has fix-1')
    const k = runBinSync(project, env(), 'verify', failing.id, '--fix', 'fix-1', '-k', 'zero')
    expect(k.code).toBe(1)
    expect(k.stderr).toContain('-k must be a whole number above 0')
    const notGood = runBinSync(
      project,
      env(),
      'verify',
      failing.id,
      '--fix',
      'fix-1',
      '--regress',
      failing.id,
    )
    expect(notGood.code).toBe(1)
    expect(notGood.stderr).toContain('E_VERIFY_REGRESS')
    const paced = runBinSync(
      project,
      env(),
      'verify',
      failing.id,
      '--fix',
      'fix-1',
      '--vitest',
      '--max-cost',
      '1',
    )
    expect(paced.code).toBe(1)
    expect(paced.stderr).toContain('--max-cost, --pace and --concurrency pace the forks of one process')
    const shard = runBinSync(
      project,
      env(),
      'verify',
      failing.id,
      '--fix',
      'fix-1',
      '--vitest',
      '--shard',
      'half',
    )
    expect(shard.code).toBe(1)
    expect(shard.stderr).toContain('--shard takes i/n')
  })
})
