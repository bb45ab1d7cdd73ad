import { join } from 'node:path'
import { describe, inject, test } from 'vitest'
import {
  diagnose,
  type ForkOptions,
  heuristicDiagnosis,
  openStore,
  type ProvidedTasksConfig,
  planVerification,
  proposeFixes,
  type Run,
  selectFailedRuns,
  slotOf,
} from '../../src/internal.ts'
import { trialTest } from './define-verify-tasks.ts'

declare module 'vitest' {
  interface ProvidedContext {
    crashlabTasks: ProvidedTasksConfig
  }
}

/**
 * Declares the diagnose (and fix) tasks of this file's share of the failed runs: per run, a `diagnose`
 * test (the LLM diagnoser when `CRASHLAB_DIAGNOSER_MODEL` is set, else the heuristic one; the result is
 * stored with the run and shown as the test's annotation), then a `fix` test that proposes fixes when a
 * model is configured (skipped, saying so, when none is).
 *
 * @example
 * // a task file the plugin writes
 * await defineDiagnoseTasks(0)
 */
export async function defineDiagnoseTasks(slot: number): Promise<void> {
  const config = inject('crashlabTasks')
  const store = await openStore({ dir: config.storeDir })
  const runs = selectFailedRuns(store, config.select).filter((_, i) => i % config.slots === slot)
  const env = process.env
  const model = env.CRASHLAB_DIAGNOSER_MODEL
  const fixer = env.CRASHLAB_FIXER_MODEL ?? model
  for (const run of runs) {
    describe(`${run.name} ${run.id}`, () => {
      test('diagnose', async ({ annotate }) => {
        const current = store.load(run.id)
        const diagnosis = model
          ? await diagnoseWithModel(current, config.storeDir)
          : heuristicDiagnosis(current)
        store.save({ ...current, diagnosis })
        const at = diagnosis.failingStep === null ? '' : ` at step ${diagnosis.failingStep}`
        await annotate(`${diagnosis.label}${at}: ${diagnosis.rootCause} (${diagnosis.by})`, 'crashlab')
      })
      test.skipIf(!fixer || config.fix === false)('fix', async ({ annotate }) => {
        const current = store.load(run.id)
        const recordTo = await openStore({ dir: join(config.storeDir, 'fixer') })
        try {
          const { fixes, rejected } = await proposeFixes(current, { recordTo })
          store.save({ ...current, fixes })
          await annotate(
            `${fixes.length} fix${fixes.length === 1 ? '' : 'es'} kept (${fixes.map((f) => f.id).join(', ') || 'none'}), ${rejected.length} rejected`,
            'crashlab',
          )
        } finally {
          recordTo.close()
        }
      })
    })
  }
  if (runs.length === 0) test.skip('no failed run to diagnose', () => {})
}

/**
 * Declares the verify tasks of this file's share: for each failed run with an unverified fix (the best
 * ranked), the plan of `verify` (k patched, k controls, the newest past good runs), and one test per
 * trial, dealt over the task files. The trials land on `meta.crashlabTrial`, where
 * `CrashlabVerifyReporter` draws each verdict and saves it on its fix.
 *
 * @example
 * await defineSessionVerifyTasks(2)
 */
export async function defineSessionVerifyTasks(slot: number): Promise<void> {
  const config = inject('crashlabTasks')
  const store = await openStore({ dir: config.storeDir })
  const plans = selectFailedRuns(store, config.select).flatMap((run) => {
    const fix = [...run.fixes].sort((a, b) => a.rank - b.rank).find((f) => !f.verification)
    if (!fix || !run.entryPoint) return []
    return [planVerification(run, { fix: fix.id, k: config.k, store })]
  })
  const all = plans.flatMap((plan) => plan.trials.map((spec) => ({ plan, spec })))
  const mine = all.filter((_, i) => slotOf(i, config.slots) === slot)
  const entryCache: NonNullable<ForkOptions['entryCache']> = new Map()
  for (const { plan, spec } of mine) {
    trialTest(plan, spec, () => store.load(spec.from), { store, cwd: config.cwd, entryCache })
  }
  if (mine.length === 0) test.skip('no fix to verify', () => {})
}

async function diagnoseWithModel(run: Run, storeDir: string) {
  const recordTo = await openStore({ dir: join(storeDir, 'diagnoser') })
  try {
    return await diagnose(run, { recordTo })
  } finally {
    recordTo.close()
  }
}
