import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/index.ts'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { runBin, runBinSync } from './helpers/built-bin.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'
import { RULE_FIX, supportAndFixerModel } from './projects/verify/model.ts'
import { recordSupportRun } from './projects/verify/record-support.ts'

// `crashlab diagnose <runs> --vitest`: the session tasks (diagnose, fix with a model, verify fork by
// fork) over runs already in the store, in a Vitest run of their own, through the built bin.
let provider: ScriptedProvider
let project: string
let storeDir: string
let failing: Run

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: supportAndFixerModel(1) })
  project = copyProject('verify')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-diagnose-vitest-'))
  failing = await recordSupportRun({ providerUrl: provider.url, project, storeDir })
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('crashlab diagnose --vitest', () => {
  it('diagnoses, fixes and verifies the named runs as Vitest tasks, and stores every result', async () => {
    const env = {
      CRASHLAB_DIR: storeDir,
      CRASHLAB_FIXER_MODEL: 'scripted-fixer',
      CRASHLAB_FIXER_BASE_URL: `${provider.url}/v1`,
      CRASHLAB_FIXER_API_KEY: 'sk-fixture-not-a-key',
    }
    const r = await runBin(project, env, ['diagnose', failing.id, '--vitest', '-k', '5', '--slots', '2'])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toMatch(/\|crashlab:diagnose\|/)
    expect(r.stdout).toMatch(/\|crashlab:verify\|/)
    expect(r.stdout).toMatch(/Tests\s+12 passed \| 1 skipped \(13\)/)
    expect(r.stdout).toContain(`VERIFIED fix-1 of ${failing.id}`)
    expect(r.stdout).toContain(`${failing.id} support-bot: TASK_SPEC_VIOLATION`)
    const store = await openStore({ dir: storeDir })
    try {
      const run = store.load(failing.id)
      expect(run.diagnosis?.by).toBe('heuristic')
      expect(run.fixes[0]?.patch).toEqual(RULE_FIX)
      expect(run.fixes[0]?.verification?.verdict).toBe('VERIFIED')
    } finally {
      store.close()
    }
  }, 120_000)

  it('says so when there is no test session in the store', () => {
    const none = runBinSync(project, { CRASHLAB_DIR: storeDir }, 'diagnose', 'session', '--vitest')
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no test session in the store')
  })
})
