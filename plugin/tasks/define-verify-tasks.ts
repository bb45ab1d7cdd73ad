import { test } from 'vitest'
import {
  type ForkOptions,
  openStore,
  type Run,
  readVerifyPlanFile,
  runTrial,
  type TrialMeta,
  type TrialSpec,
  trialsOfSlot,
  type VerifyOptions,
  type VerifyPlan,
} from '../../src/internal.ts'

declare module 'vitest' {
  interface TaskMeta {
    /** What a verify task left for `CrashlabVerifyReporter`: its trial and the plan it belongs to. */
    crashlabTrial?: TrialMeta
  }
}

/**
 * Declares one Vitest test per trial of this task file's share of the verification that
 * `crashlab verify --vitest` planned (the plan file in `CRASHLAB_VERIFY_PLAN`): each test forks the run
 * (patched, control, or a past good run with the patch), stores the fork, and leaves the trial on its
 * `meta.crashlabTrial` for the reporter, which draws the verdict. Task files run in parallel over
 * Vitest's worker pool, and `--shard` spreads them over machines; within a file the forks of the run
 * are concurrent tests, and a past good run (which may call other hosts) runs alone.
 *
 * @example
 * // a task file written by crashlab verify --vitest
 * import { defineVerifyTasks } from 'crashlab/tasks'
 * await defineVerifyTasks(0)
 */
export async function defineVerifyTasks(slot: number): Promise<void> {
  const file = readVerifyPlanFile()
  const { plan } = file
  const specs = trialsOfSlot(plan, slot, file.slots)
  const store = await openStore({ dir: file.storeDir })
  const runs = new Map<string, Run>()
  const load = (id: string): Run => {
    let run = runs.get(id)
    if (!run) {
      run = store.load(id)
      runs.set(id, run)
    }
    return run
  }
  const entryCache: NonNullable<ForkOptions['entryCache']> = new Map()
  for (const spec of specs) trialTest(plan, spec, () => load(spec.from), { ...file, store, entryCache })
}

/**
 * One trial as one Vitest test: forks the run, stores the fork, and leaves the trial on the test's
 * `meta.crashlabTrial` for `CrashlabVerifyReporter`. The test fails only when the fork could not run at
 * all; a fork that fails its oracles is a result, not a broken task.
 *
 * @example
 * for (const spec of plan.trials) trialTest(plan, spec, () => store.load(spec.from), { store, cwd })
 */
export function trialTest(
  plan: VerifyPlan,
  spec: TrialSpec,
  from: () => Run,
  options: Pick<VerifyOptions, 'baseUrl' | 'store' | 'cwd' | 'config'> & Pick<ForkOptions, 'entryCache'>,
): void {
  // The forks of the verified run overlap within a file (each has its own Session; they share one
  // interceptor, having the same hosts); a past good run, which may call other hosts, runs alone.
  const declare = spec.arm === 'regress' || spec.arm === 'regress-control' ? test : test.concurrent
  declare(
    `verify ${plan.fix.id} of ${plan.runId}: ${spec.id}`,
    { timeout: 10 * 60_000 },
    async ({ task }) => {
      const trial = await runTrial(from(), spec, plan, options)
      task.meta.crashlabTrial = {
        runId: plan.runId,
        fix: plan.fix,
        k: plan.k,
        atStep: plan.atStep,
        control: plan.control,
        spec: spec.id,
        trial,
      }
      if (trial.runId === null && trial.outcome === 'errored') {
        throw new Error(`the fork could not run: ${trial.reason ?? 'no reason given'}`)
      }
    },
  )
}
