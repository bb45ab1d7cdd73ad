import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/index.ts'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { runBin } from './helpers/built-bin.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'
import { RULE, supportModel } from './projects/verify/model.ts'
import { recordSupportRun } from './projects/verify/record-support.ts'

// The repair loop chained through the built bin, on the verify fixture (a support bot whose model names
// the order only when the system prompt carries RULE): `diagnose --fix` prints the report with the
// fixes; `fix --verify` diagnoses (when needed), proposes and verifies in one go. One scripted provider
// plays the agent's model, the diagnoser and the fixer, told apart by their system prompts.
const FIX = { kind: 'system_prompt', op: 'append', text: RULE } as const

let provider: ScriptedProvider
let project: string
let storeDir: string

beforeAll(async () => {
  const agentModel = supportModel(1)
  provider = await startScriptedProvider({
    policy: (request, ctx) => {
      const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
      if (system.startsWith('You fix failed runs')) {
        return {
          text: JSON.stringify({
            fixes: [
              { patch: FIX, rationale: 'Nothing asks for the id.', expected_effect: 'The answer names it.' },
            ],
          }),
        }
      }
      if (system.startsWith('You diagnose failed runs')) {
        return {
          text: JSON.stringify({
            label: 'TASK_SPEC_VIOLATION',
            failing_step: 2,
            root_cause: 'The answer does not name the order the user asked about.',
            evidence: [{ step: 2, quote: 'Your order has shipped.' }],
          }),
        }
      }
      return agentModel(request, ctx)
    },
  })
  project = copyProject('verify')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-cli-chain-'))
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

/** A failing run of the support bot (its answer does not name the order), stored. */
async function failingRun(): Promise<Run> {
  const run = await recordSupportRun({ providerUrl: provider.url, project, storeDir })
  expect(run.outcome).toBe('fail')
  return run
}

async function stored(id: string): Promise<Run> {
  const store = await openStore({ dir: storeDir, config: false })
  try {
    return store.load(id)
  } finally {
    store.close()
  }
}

const env = (extra: Record<string, string> = {}) => ({ CRASHLAB_DIR: storeDir, ...extra })

describe('crashlab diagnose --fix', () => {
  it('diagnoses, proposes the fixes, and prints the report of the run with its diagnosis and fixes', async () => {
    const run = await failingRun()
    const r = await runBin(project, env(), [
      'diagnose',
      run.id,
      '--heuristic',
      '--fix',
      '--model',
      'fixer',
      '--base-url',
      `${provider.url}/v1`,
    ])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`crashlab report · support-bot · ${run.id}`)
    expect(r.stdout).toContain('fix-1')
    expect(r.stdout).toContain(RULE)
    expect(r.stdout).toMatch(/TASK_SPEC_VIOLATION at step \d+ — .* \(heuristic\)/)
    expect(r.stdout).toContain(`crashlab verify ${run.id} --fix fix-1`)
    const after = await stored(run.id)
    expect(after.diagnosis?.by).toBe('heuristic')
    expect(after.fixes.map((f) => f.patch)).toEqual([FIX])
  })
})

describe('crashlab fix --verify', () => {
  it('diagnoses with the model when one is set, proposes, verifies the top fix: VERIFIED, exit 0', async () => {
    const run = await failingRun()
    const r = await runBin(project, env(), [
      'fix',
      run.id,
      '--verify',
      '-k',
      '5',
      '--model',
      'helper',
      '--base-url',
      `${provider.url}/v1`,
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`run ${run.id} has no diagnosis: diagnosing it with model helper`)
    expect(r.stdout).toContain('TASK_SPEC_VIOLATION at step 2')
    expect(r.stdout).toContain('fix-1 (rank 1)')
    expect(r.stdout).toContain(`verifying fix-1 on run ${run.id}`)
    expect(r.stdout).toMatch(/patched\s+5\s+5\s+0\s+0\s+100%/)
    expect(r.stdout).toMatch(/control\s+5\s+0\s+5\s+0\s+0%/)
    expect(r.stdout).toContain('forks from step 2')
    expect(r.stdout).toContain('VERIFIED fix-1')
    expect(r.stdout).toContain(`crashlab export-test ${run.id} --fix fix-1`)
    const after = await stored(run.id)
    expect(after.diagnosis?.by).toBe('helper')
    expect(after.fixes[0]?.verification?.verdict).toBe('VERIFIED')
  })

  it('with no diagnoser model set, diagnoses by rules and says so; the fixer model comes from its variables', async () => {
    const run = await failingRun()
    const r = await runBin(
      project,
      env({ CRASHLAB_FIXER_MODEL: 'fixer', CRASHLAB_FIXER_BASE_URL: `${provider.url}/v1` }),
      ['fix', run.id, '--verify', '-k', '5', '--regress', 'none', '--json'],
    )
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as {
      diagnosis: { by: string }
      fixes: Array<{ id: string }>
      verifications: Array<{ fix: string; verification: { verdict: string } }>
    }
    expect(out.diagnosis.by).toBe('heuristic')
    expect(out.fixes.map((f) => f.id)).toEqual(['fix-1'])
    expect(out.verifications.map((v) => [v.fix, v.verification.verdict])).toEqual([['fix-1', 'VERIFIED']])
    const text = await runBin(
      project,
      env({ CRASHLAB_FIXER_MODEL: 'fixer', CRASHLAB_FIXER_BASE_URL: `${provider.url}/v1` }),
      ['fix', (await failingRun()).id, '--verify', '-k', '1', '--regress', 'none', '--no-control'],
    )
    expect(text.stdout).toContain('diagnosing it by rules (--heuristic; no diagnoser model is set)')
  })

  it('--try and --verify together: a usage error', async () => {
    const r = await runBin(project, env(), ['fix', 'last', '--verify', '--try'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('--try and --verify: pick one')
  })
})
