import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { copyProject, removeProject, runFixture } from './projects/run-fixture.ts'
import { RULE_FIX, supportAndFixerModel } from './projects/verify/model.ts'

// The plugin's `tasks`: one `vitest run` of a project whose agentCase fails runs, after the project's own
// tests, a diagnose and a fix task for the failed run and one task per fork of the fix's verification,
// all in Vitest's output, and stores the diagnosis, the fix and its verdict with the run.
const FIX = RULE_FIX

let provider: ScriptedProvider
let project: string
let storeDir: string

beforeAll(async () => {
  provider = await startScriptedProvider({ policy: supportAndFixerModel(1) })
  project = copyProject('tasks')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-plugin-tasks-'))
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('crashlab({ tasks })', () => {
  it('diagnoses, fixes and verifies the failed runs of the session as Vitest tasks after the tests', async () => {
    const { code, output } = await runFixture(project, ['run'], {
      env: {
        SCRIPTED_URL: provider.url,
        CRASHLAB_DIR: storeDir,
        CRASHLAB_FIXER_MODEL: 'scripted-fixer',
        CRASHLAB_FIXER_BASE_URL: `${provider.url}/v1`,
        CRASHLAB_FIXER_API_KEY: 'sk-fixture-not-a-key',
      },
    })
    // The agent test failed, so the run fails; every crashlab task passed.
    expect(code).toBe(1)
    expect(output).toMatch(/support\.spec\.ts > where is A17/)
    // diagnose and fix of the failed run, ten forks; the second diagnose file had no run to take.
    expect(output).toMatch(/Tests\s+1 failed \| 12 passed \| 1 skipped \(14\)/)
    expect(output).toMatch(/\|crashlab:diagnose\| .*diagnose-01\.crashlab-task\.mjs \(2 tests\)/)
    const store = await openStore({ dir: storeDir })
    try {
      const sessions = store.list({}).filter((s) => s.tags.some((t) => t.startsWith('session:')))
      expect(sessions).toHaveLength(1)
      const run = store.load(sessions[0]!.id)
      expect(run.outcome).toBe('fail')
      expect(run.entryPoint).toMatchObject({ kind: 'test', test: 'where is A17' })
      expect(run.diagnosis?.by).toBe('heuristic')
      expect(run.fixes.map((f) => f.patch)).toEqual([FIX])
      expect(run.fixes[0]?.verification).toMatchObject({
        verdict: 'VERIFIED',
        patched: { trials: 5, passed: 5 },
        control: { trials: 5, passed: 0 },
        fixedK: true,
      })
      expect(output).toContain(`VERIFIED fix-1 of ${run.id}`)
      for (const trial of ['patched-1', 'control-1', 'patched-5', 'control-5']) {
        expect(output).toContain(`verify fix-1 of ${run.id}: ${trial}`)
      }
      // The forks are stored, linked to the run, and not taken as failed runs of the session.
      expect(store.list({ tag: `verify:${run.id}` })).toHaveLength(10)
    } finally {
      store.close()
    }
  }, 180_000)
})
