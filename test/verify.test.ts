import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../src/index.ts'
import type { Patch } from '../src/patches/patch-schema.ts'
import { openStore } from '../src/store/index.ts'
import type { RunStore } from '../src/store/types.ts'
import { startScriptedProvider } from '../src/testing/index.ts'
import { verify } from '../src/verify/index.ts'
import { copyProject, removeProject } from './projects/run-fixture.ts'
import { RULE, supportModel } from './projects/verify/model.ts'
import { recordSupportRun, saveWithRuleFix } from './projects/verify/record-support.ts'

// verify end to end: a support bot (module entry point) whose oracle wants the answer to name the order.
// Its scripted model does that only when the system prompt carries RULE, and then with probability p.
// The failing run is recorded without the rule; the fix appends it.
const FIX: Patch = { kind: 'system_prompt', op: 'append', text: RULE }
const _QUESTION = 'Where is my order A17?'

let project: string
let storeDir: string
let store: RunStore
let failing: Run

async function recordRun(rule: string | undefined, obey: number): Promise<Run> {
  const provider = await startScriptedProvider({ policy: supportModel(obey) })
  try {
    return await recordSupportRun({ providerUrl: provider.url, project, storeDir, ...(rule && { rule }) })
  } finally {
    await provider.close()
  }
}

/** The failing run, diagnosed at its final answer (step 2): forks go live at that model call only. */
function diagnosedAtFinalAnswer(): Run {
  return {
    ...failing,
    diagnosis: {
      label: 'TASK_SPEC_VIOLATION',
      failingStep: 2,
      rootCause: 'The answer does not name the order.',
      evidence: [],
      by: 'heuristic',
      createdAt: new Date().toISOString(),
    },
  }
}

beforeAll(async () => {
  project = copyProject('verify')
  storeDir = mkdtempSync(join(tmpdir(), 'crashlab-verify-store-'))
  failing = await recordRun(undefined, 0.9)
  store = await openStore({ dir: storeDir })
})
afterAll(() => {
  store?.close()
  removeProject(project)
  rmSync(storeDir, { recursive: true, force: true })
})

describe('verify', () => {
  it('the recorded run fails its oracle at the final answer, so the fix forks at that model call', () => {
    expect(failing.outcome).toBe('fail')
    expect(failing.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm'])
  })

  it('a policy that obeys the rule with p = 0.9 while the control never does: VERIFIED in at least 95 of 100 seeds (k = 10)', async () => {
    const verdicts: Record<string, number> = {}
    for (let seed = 0; seed < 100; seed++) {
      const provider = await startScriptedProvider({ policy: supportModel(0.9), seed })
      try {
        const { verification } = await verify(failing, {
          fix: FIX,
          k: 10,
          regress: 'none',
          baseUrl: provider.url,
          cwd: project,
        })
        verdicts[verification.verdict] = (verdicts[verification.verdict] ?? 0) + 1
        expect(verification.control?.passed).toBe(0)
        expect(verification.trials).toHaveLength(20)
        // Undiagnosed, the run names no failing step: every fork goes live from the first model call.
        expect(verification.atStep).toBe(0)
        expect(provider.requests.filter((r) => r.index !== null)).toHaveLength(40)
      } finally {
        await provider.close()
      }
    }
    expect(verdicts.VERIFIED ?? 0).toBeGreaterThanOrEqual(95)
  }, 240_000)
})

describe('verify: the other verdicts', () => {
  it('a fix that breaks a past good run is REJECTED, even when it fixes the failing run; the forks and the verification are stored', async () => {
    const good = await recordRun(RULE, 1)
    expect(good.outcome).toBe('pass')
    const withFix = await saveWithRuleFix(storeDir, failing)
    const provider = await startScriptedProvider({ policy: supportModel(1) })
    try {
      const { verification, run } = await verify(withFix, {
        fix: 'fix-1',
        k: 3,
        store,
        baseUrl: provider.url,
        cwd: project,
      })
      expect(verification.patched).toMatchObject({ passed: 3, failed: 0 })
      expect(verification.control).toMatchObject({ passed: 0, failed: 3 })
      const regress = verification.trials.filter((t) => t.arm === 'regress')
      expect(regress).toEqual([expect.objectContaining({ from: good.id, outcome: 'fail' })])
      expect(verification.verdict).toBe('REJECTED')
      expect(verification.reason).toContain(good.id)
      // Stored: the run's fix carries the verification, every fork is tagged and linked.
      expect(store.load(failing.id).fixes[0]?.verification?.verdict).toBe('REJECTED')
      expect(run.fixes[0]?.verification).toEqual(verification)
      const forks = store.list({ tag: `verify:${failing.id}` })
      expect(forks).toHaveLength(7)
      expect(new Set(forks.map((f) => f.forkedFrom))).toEqual(new Set([failing.id, good.id]))
      expect(verification.trials.every((t) => t.runId !== null)).toBe(true)
    } finally {
      await provider.close()
    }
  })

  it('429s count as errored, never as failures: a control arm that only got rate-limited leaves the verdict INCONCLUSIVE', async () => {
    const provider = await startScriptedProvider({ policy: supportModel(1, { rateLimited: true }) })
    try {
      const { verification } = await verify(failing, {
        fix: FIX,
        k: 4,
        regress: 'none',
        baseUrl: provider.url,
        cwd: project,
      })
      expect(verification.patched).toMatchObject({ passed: 4, failed: 0, errored: 0 })
      expect(verification.control).toMatchObject({ passed: 0, failed: 0, errored: 4, passRate: null })
      expect(verification.trials.find((t) => t.arm === 'control')?.reason).toContain('429')
      expect(verification.verdict).toBe('INCONCLUSIVE')
    } finally {
      await provider.close()
    }
  })

  it('without controls, all k patched passes verify the fix; a diagnosed step is where the forks go live', async () => {
    const diagnosed = diagnosedAtFinalAnswer()
    const provider = await startScriptedProvider({ policy: supportModel(1) })
    try {
      const progress: string[] = []
      const { verification } = await verify(diagnosed, {
        fix: FIX,
        k: 5,
        control: false,
        regress: 'none',
        baseUrl: provider.url,
        cwd: project,
        onProgress: ({ done, total, trial }) =>
          progress.push(`${done}/${total} ${trial.arm} ${trial.outcome}`),
      })
      expect(verification.atStep).toBe(2)
      expect(provider.requests.filter((r) => r.index !== null)).toHaveLength(5)
      expect(verification.control).toBeNull()
      expect(verification.patched.passHatK).toBe(1)
      expect(verification.verdict).toBe('VERIFIED')
      expect(progress).toEqual([
        '1/5 patched pass',
        '2/5 patched pass',
        '3/5 patched pass',
        '4/5 patched pass',
        '5/5 patched pass',
      ])
    } finally {
      await provider.close()
    }
  })

  it('stops starting forks at the cost limit and says so', async () => {
    const provider = await startScriptedProvider({ policy: supportModel(1) })
    try {
      // The scripted model is priced as gpt-4o-mini at its loopback address: $0, so any limit of 0 stops at once.
      const { verification } = await verify(failing, {
        fix: FIX,
        k: 3,
        regress: 'none',
        maxCostUsd: 0,
        baseUrl: provider.url,
        cwd: project,
      })
      expect(verification.stopped).toBe('max-cost')
      expect(verification.trials).toHaveLength(0)
      expect(verification.verdict).toBe('INCONCLUSIVE')
      expect(verification.reason).toContain('cost limit')
    } finally {
      await provider.close()
    }
  })

  it('names the fix it cannot find, and the fixes the run has', async () => {
    await expect(verify(failing, { fix: 'fix-9', regress: 'none' })).rejects.toThrow(
      /has no fix "fix-9".*crashlab fix/,
    )
    await expect(verify(failing, { fix: { kind: 'nope' } as never, regress: 'none' })).rejects.toMatchObject({
      code: 'E_VERIFY_FIX',
    })
  })
})

describe('verify: concurrency', () => {
  it('overlaps the forks of the run up to `concurrency`, with the verdict and the trial order of a sequential run', async () => {
    const diagnosed = diagnosedAtFinalAnswer()
    // Every answer takes 300 ms: one after the other, no request can arrive within 300 ms of the last.
    const arrivals: number[] = []
    const model = supportModel(1)
    const provider = await startScriptedProvider({
      latencyMs: 300,
      policy: (request, ctx) => {
        arrivals.push(Date.now())
        return model(request, ctx)
      },
    })
    try {
      const options = { fix: FIX, k: 4, regress: 'none' as const, baseUrl: provider.url, cwd: project }
      const { verification } = await verify(diagnosed, { ...options, concurrency: 4 })
      expect(verification.patched).toMatchObject({ trials: 4, passed: 4 })
      expect(verification.control).toMatchObject({ trials: 4, passed: 0, failed: 4 })
      expect(verification.verdict).toBe('VERIFIED')
      expect(verification.trials.map((t) => t.arm)).toEqual([
        'patched',
        'control',
        'patched',
        'control',
        'patched',
        'control',
        'patched',
        'control',
      ])
      const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number))
      expect(Math.min(...gaps)).toBeLessThan(300)
    } finally {
      await provider.close()
    }
  })

  it("--pace spaces the forks' live model calls, across lanes too", async () => {
    const arrivals: number[] = []
    const model = supportModel(1)
    const provider = await startScriptedProvider({
      policy: (request, ctx) => {
        arrivals.push(Date.now())
        return model(request, ctx)
      },
    })
    try {
      const pace = 150
      const options = {
        fix: FIX,
        k: 2,
        regress: 'none' as const,
        baseUrl: provider.url,
        cwd: project,
        paceMs: pace,
      }
      await verify(diagnosedAtFinalAnswer(), { ...options, concurrency: 2 })
      expect(arrivals).toHaveLength(4)
      const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number))
      // Paced at the hook, before the request is written and sent: each arrival is some ms off its slot,
      // but unpaced, these overlapping forks' calls arrive within a few ms of each other.
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(pace / 2)
      expect((arrivals[3] as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(3 * pace - 30)
    } finally {
      await provider.close()
    }
  })
})
