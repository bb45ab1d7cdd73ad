import { readFileSync } from 'node:fs'
import type { FixProposal, Trial } from '../case/schema/run.ts'
import { CrashlabError } from '../errors.ts'
import type { TrialSpec, VerifyPlan } from '../verify/verify.ts'
import { slotOf } from './task-files.ts'

/**
 * The environment variable naming the plan file the verify task files read.
 *
 * @example
 * process.env[VERIFY_PLAN_ENV] // '/tmp/crashlab-verify-x1/plan.json'
 */
export const VERIFY_PLAN_ENV = 'CRASHLAB_VERIFY_PLAN'

/**
 * A verification laid out for Vitest: the plan (`planVerification`) plus where the forks run. Written by
 * `crashlab verify --vitest` as JSON, read by every task file.
 *
 * @example
 * const file: VerifyPlanFile = { storeDir, cwd, plan, slots: 4 }
 */
export interface VerifyPlanFile {
  storeDir: string
  cwd: string
  baseUrl?: string
  config?: string | false
  plan: VerifyPlan
  /** How many task files share the trials (dealt by `slotOf`). */
  slots: number
}

/**
 * What a verify task leaves on its test's `meta.crashlabTrial`, for the reporter: enough to compute the
 * verdict from the tasks alone, so that `--merge-reports` over shards gives the verdict one run gives.
 *
 * @example
 * testCase.meta().crashlabTrial?.trial.outcome // 'pass'
 */
export interface TrialMeta {
  runId: string
  fix: FixProposal
  k: number
  atStep: number
  control: boolean
  /** The trial's place in its plan (`patched-3`, `regress-<id>-3`, `regress-control-<id>-3`). */
  spec: string
  trial: Trial
}

/**
 * Reads the plan file named by `CRASHLAB_VERIFY_PLAN`.
 *
 * @example
 * const { plan } = readVerifyPlanFile()
 */
export function readVerifyPlanFile(path: string | undefined = process.env[VERIFY_PLAN_ENV]): VerifyPlanFile {
  if (!path) {
    throw new CrashlabError(
      'E_VERIFY_FIX',
      `${VERIFY_PLAN_ENV} is not set: the verify task files are run by \`crashlab verify <id> --fix <fix> --vitest\`, not on their own.`,
    )
  }
  const file = JSON.parse(readFileSync(path, 'utf8')) as VerifyPlanFile
  return file
}

/**
 * The trials of one task file.
 *
 * @example
 * trialsOfSlot(plan, 0, 4) // trials 0, 5, 8, 13, … (see slotOf)
 */
export function trialsOfSlot(plan: VerifyPlan, slot: number, slots: number): TrialSpec[] {
  return plan.trials.filter((_, i) => slotOf(i, slots) === slot)
}
