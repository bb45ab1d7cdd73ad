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

  it('a policy that obeys the rule with p = 0.9 while the control never does: VERIFIED in at least 95 of 100 seeds, stopping once decided (budget 20)', async () => {
    const verdicts: Record<string, number> = {}
    let pairs = 0
    for (let seed = 0; seed < 100; seed++) {
      const provider = await startScriptedProvider({ policy: supportModel(0.9), seed })
      try {
        const { verification } = await verify(failing, {
          fix: FIX,
          regress: 'none',
          baseUrl: provider.url,
          cwd: project,
        })
        verdicts[verification.verdict] = (verdicts[verification.verdict] ?? 0) + 1
        expect(verification.k).toBe(20)
        expect(verification.control?.passed).toBe(0)
        // Both arms run in pairs, and stop as soon as the verdict is decided.
        expect(verification.control?.trials).toBe(verification.patched.trials)
        if (verification.verdict === 'VERIFIED') expect(verification.stopped).toBe('decided')
        pairs += verification.patched.trials
        // Undiagnosed, the run names no failing step: every fork goes live from the first model call.
        expect(verification.atStep).toBe(0)
        expect(provider.requests.filter((r) => r.index !== null)).toHaveLength(
          4 * verification.patched.trials,
        )
      } finally {
        await provider.close()
      }
    }
    expect(verdicts.VERIFIED ?? 0).toBeGreaterThanOrEqual(95)
    // A fixed k of 10 ran 10 pairs a seed; the sequential rule about 5.5.
    expect(pairs / 100).toBeLessThan(8)
    // About 1,100 forks, one after the other: the timeout is a safety net for a loaded machine.
  }, 600_000)

  // A guard, not the measurement: the rate (at most α = 5 %) is measured on 1,000 simulated seeds in
  // src/verify/sequential.test.ts; 20 seeds of a 5 % event give 2 or more about one time in four.
  it('a patch with no effect (both arms name the order 3 times in 10): VERIFIED in at most 2 of 20 seeds', async () => {
    const verdicts: Record<string, number> = {}
    const noEffect: Patch = { kind: 'system_prompt', op: 'append', text: 'Be polite.' }
    for (let seed = 0; seed < 20; seed++) {
      const provider = await startScriptedProvider({ policy: supportModel(0.9, { unprompted: 0.3 }), seed })
      try {
        const { verification } = await verify(failing, {
          fix: noEffect,
          regress: 'none',
          baseUrl: provider.url,
          cwd: project,
        })
        verdicts[verification.verdict] = (verdicts[verification.verdict] ?? 0) + 1
      } finally {
        await provider.close()
      }
    }
    expect(verdicts.VERIFIED ?? 0).toBeLessThanOrEqual(2)
    expect(verdicts.VERIFIED ?? 0).toBeLessThan(verdicts.REJECTED ?? 0)
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
        store,
        baseUrl: provider.url,
        cwd: project,
      })
      // The rule twice makes the model refuse: the good run fails with the patch and passes without it,
      // round after round, until the bet on a regression reaches 1/α (five pairs).
      const of = (arm: string) => verification.trials.filter((t) => t.arm === arm)
      expect(of('regress')).toHaveLength(5)
      expect(of('regress').every((t) => t.from === good.id && t.outcome === 'fail')).toBe(true)
      expect(of('regress-control').every((t) => t.from === good.id && t.outcome === 'pass')).toBe(true)
      expect(verification.patched).toMatchObject({ passed: 5, failed: 0 })
      expect(verification.control).toMatchObject({ passed: 0, failed: 5 })
      expect(verification.verdict).toBe('REJECTED')
      expect(verification.reason).toContain(`${good.id} (0/5 with the patch, 5/5 without)`)
      expect(verification.stopped).toBe('decided')
      // Stored: the run's fix carries the verification, every fork is tagged and linked.
      expect(store.load(failing.id).fixes[0]?.verification?.verdict).toBe('REJECTED')
      expect(run.fixes[0]?.verification).toEqual(verification)
      const forks = store.list({ tag: `verify:${failing.id}` })
      expect(forks).toHaveLength(20)
      expect(new Set(forks.map((f) => f.forkedFrom))).toEqual(new Set([failing.id, good.id]))
      expect(verification.trials.every((t) => t.runId !== null)).toBe(true)
    } finally {
      await provider.close()
    }
  })

  it("a past good run is judged by its own pass rate with and without the patch: a stochastic agent's failures are not regressions", async () => {
    // A patch that leaves past good runs as they were (it sets the system prompt they already had),
    // on an agent that obeys the rule 8 times in 10: the good run fails now and then, with the patch and
    // without it. A single re-run with the patch would have failed, and rejected the fix, in some seeds.
    const good = await recordRun(RULE, 1)
    const fix: Patch = { kind: 'system_prompt', op: 'replace', text: `You are the support bot.\n${RULE}` }
    const verdicts: Record<string, number> = {}
    let goodFailedWithPatch = 0
    for (let seed = 0; seed < 12; seed++) {
      const provider = await startScriptedProvider({ policy: supportModel(0.8), seed })
      try {
        const { verification } = await verify(failing, {
          fix,
          regress: [good.id],
          store,
          baseUrl: provider.url,
          cwd: project,
        })
        verdicts[verification.verdict] = (verdicts[verification.verdict] ?? 0) + 1
        if (verification.trials.some((t) => t.arm === 'regress' && t.outcome === 'fail'))
          goodFailedWithPatch++
        expect(verification.trials.filter((t) => t.arm === 'regress-control').length).toBeGreaterThan(0)
      } finally {
        await provider.close()
      }
    }
    expect(goodFailedWithPatch).toBeGreaterThanOrEqual(3)
    expect(verdicts.REJECTED ?? 0).toBe(0)
    expect(verdicts.VERIFIED ?? 0).toBeGreaterThanOrEqual(9)
  }, 120_000)

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
      const options = { fix: FIX, k: 8, regress: 'none' as const, baseUrl: provider.url, cwd: project }
      // Rounds of four pairs: the first does not decide (four wins reach 13, not 20), the second does,
      // at its first pair: five pairs in all, the later ones of that round having run too.
      const { verification } = await verify(diagnosed, { ...options, concurrency: 4 })
      expect(verification.patched).toMatchObject({ trials: 8, passed: 8 })
      expect(verification.control).toMatchObject({ trials: 8, passed: 0, failed: 8 })
      expect(verification.verdict).toBe('VERIFIED')
      expect(verification.trials.map((t) => t.arm)).toEqual(
        Array.from({ length: 8 }, () => ['patched', 'control']).flat(),
      )
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
