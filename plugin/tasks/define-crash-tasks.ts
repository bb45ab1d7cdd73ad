import { afterAll, beforeAll, describe, test } from 'vitest'
import {
  CrashlabError,
  type CrashTaskMeta,
  crashCellsOfSlot,
  openStore,
  readCrashPlanFile,
} from '../../src/internal.ts'
import type { CrashVariantContext } from '../../src/on-demand.ts'

declare module 'vitest' {
  interface TaskMeta {
    /** What a crash-test task left for `CrashlabCrashReporter`: its judged cell and its place in the matrix. */
    crashlabCrashCell?: CrashTaskMeta
  }
}

/**
 * Declares one Vitest test per cell of this task file's share of the crash test that
 * `crashlab crash-test <run> --vitest` planned (the plan file in `CRASHLAB_CRASH_PLAN`), inside a
 * `describe` naming the run. Each test replays the run with the cell's fault (`runCrashVariant`),
 * stores the variant (tagged `crash-test`, linked by `links.crashOf`), annotates itself with the
 * outcome, and leaves the cell on its `meta.crashlabCrashCell` for the reporter, which draws the
 * matrix. A `failed` cell fails its test; a `diverged` one passes (the agent asked for something the
 * recording lacks: not a failure of the agent). The entry point loads once per file; the cells of a file
 * run one after the other, each inside its own replay interceptor and graded once it is closed.
 *
 * @example
 * // a task file written by crashlab crash-test --vitest
 * import { defineCrashTasks } from 'crashlab/tasks'
 * await defineCrashTasks(0)
 */
export async function defineCrashTasks(slot: number): Promise<void> {
  const plan = readCrashPlanFile()
  const mine = crashCellsOfSlot(plan.cells, slot, plan.slots)
  const crash = await import('../../src/on-demand.ts')
  const store = await openStore({ dir: plan.storeDir })
  const parent = store.load(plan.runId)
  let context: CrashVariantContext | undefined
  describe(`crash test of run ${parent.id} (${parent.name})`, () => {
    beforeAll(async () => {
      context = await crash.prepareCrashVariants(parent, {
        cwd: plan.cwd,
        ...(plan.config !== undefined && { config: plan.config }),
        sourcePath: store.get(parent.id).path,
        store,
      })
    })
    afterAll(() => store.close())
    for (const { index, cell } of mine) {
      const title = `step ${cell.step} (${parent.steps[cell.step]?.type ?? 'step'}) × ${crash.faultLabel(cell.fault)}`
      test(title, { timeout: 10 * 60_000 }, async ({ task, annotate }) => {
        if (!context) throw new Error('the crash test could not start: see the error of the file above')
        const result = await crash.runCrashVariant(parent, cell, context)
        task.meta.crashlabCrashCell = {
          runId: parent.id,
          index,
          step: cell.step,
          fault: cell.fault,
          outcome: result.outcome,
          detail: result.detail,
          variantId: result.runId ?? '',
        }
        await annotate(`${result.outcome}: ${result.detail}`, 'crashlab')
        if (result.outcome === 'failed')
          throw new CrashlabError(
            'E_CRASH_FAILED',
            `run ${parent.id} did not survive ${title}: ${result.detail} (the variant: \`crashlab show ${result.runId}\`)`,
            { subject: parent.id },
          )
      })
    }
  })
}
