import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installInterceptor, type Run, record } from '../src/index.ts'
import { openStore } from '../src/store/index.ts'
import { type ScriptedProvider, startScriptedProvider } from '../src/testing/index.ts'
import { runBin, runBinSync } from './helpers/built-bin.ts'
import { refundOrder, refundRuns } from './projects/fork/agent.ts'
import { refundModel } from './projects/fork/model.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'

// `crashlab fix --try` end to end through the built bin: a run of the fork fixture's refund bot (a
// module entry point) is diagnosed by rules, a fix is proposed by a model (the scripted provider playing
// the fixer too), and `--try` forks the run with it: the fork goes live against the same provider, with
// the patch on the model request, and never runs the side-effect refund again.
const FIX = { kind: 'system_prompt', op: 'append', text: 'Refund half.' } as const

let provider: ScriptedProvider
let project: string
let storeDir: string
let parent: Run

beforeAll(async () => {
  // One provider, two roles: the fixer's call is told apart by its system prompt.
  provider = await startScriptedProvider({
    policy: (request) => {
      const system = request.system.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
      if (system.startsWith('You fix failed runs')) {
        return {
          text: JSON.stringify({
            fixes: [
              { patch: FIX, rationale: 'Halve refunds.', expected_effect: 'The refund is half the total.' },
            ],
          }),
        }
      }
      return refundModel(request)
    },
  })
  project = copyProject('fork')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-fix-try-store-'))
  const interceptor = installInterceptor({ hosts: [provider.url] })
  try {
    const { run, error } = await record('refund-bot', refundOrder, {
      input: { question: 'My order A17 arrived broken, refund it.', baseURL: `${provider.url}/v1` },
      config: join(project, 'crashlab.config.ts'),
      store: storeDir,
      entryPoint: { kind: 'module', module: './agent.ts', export: 'refundOrder' },
    })
    if (error) throw error
    parent = run
  } finally {
    await interceptor.close()
  }
})
afterAll(async () => {
  await provider.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('crashlab fix --try', () => {
  it('forks the run once with the top fix: every live model request carries it, the refund never runs again', async () => {
    const env = { CRASHLAB_DIR: storeDir }
    expect(runBinSync(project, env, 'diagnose', parent.id, '--heuristic').code).toBe(0)
    const refundsBefore = refundRuns()
    const before = provider.requests.length
    const r = await runBin(project, env, [
      'fix',
      parent.id,
      '--model',
      'fixer',
      '--base-url',
      `${provider.url}/v1`,
      '--try',
    ])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('fix-1')
    // The fixer's call, then the fork's live model calls, each with the fix on its system prompt.
    const live = provider.requests.slice(before + 1)
    expect(live.length).toBeGreaterThan(0)
    for (const request of live) expect(JSON.stringify(request)).toContain('Refund half.')
    expect(refundRuns()).toBe(refundsBefore)
    const store = await openStore({ dir: storeDir, config: false })
    try {
      const forks = store.list().filter((s) => s.forkedFrom === parent.id)
      expect(forks).toHaveLength(1)
      const forked = store.load(forks[0]?.id as string)
      expect(forked.links.patch).toEqual(FIX)
      expect(r.stdout).toContain(forked.id)
    } finally {
      store.close()
    }
  })
})
