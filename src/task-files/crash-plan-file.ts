import { readFileSync } from 'node:fs'
import type { Fault } from '../crash/faults.ts'
import type { CrashCell } from '../crash/inject.ts'
import type { CrashOutcome } from '../crash/judge.ts'
import { CrashlabError } from '../errors.ts'

/**
 * The environment variable naming the plan file the crash-test task files read.
 *
 * @example
 * process.env[CRASH_PLAN_ENV] // '/tmp/crashlab-crash-x1/plan.json'
 */
export const CRASH_PLAN_ENV = 'CRASHLAB_CRASH_PLAN'

/**
 * A crash test laid out for Vitest: the run, its cells in the matrix's order, and where the variants
 * run. Written by `crashlab crash-test <run> --vitest` as JSON, read by every task file.
 *
 * @example
 * const file: CrashPlanFile = { storeDir, cwd, runId, faults, cells: crashCells(run, faults), slots: 4 }
 */
export interface CrashPlanFile {
  storeDir: string
  /** The project: the entry point is resolved there. */
  cwd: string
  config?: string | false
  runId: string
  faults: Fault[]
  /** The steps chosen (`--steps`); all when absent. */
  steps?: number[]
  /** Every cell of the matrix, in its order (`crashCells`): a cell's index is its place here. */
  cells: CrashCell[]
  /** How many task files share the cells (dealt by `crashCellsOfSlot`). */
  slots: number
}

/**
 * What a crash-test task leaves on its test's `meta.crashlabCrashCell`, for the reporter: the judged
 * cell and its place in the matrix, so that the matrix comes out the same whatever order the tasks
 * finished in, and from the shards' merged reports.
 *
 * @example
 * testCase.meta().crashlabCrashCell?.outcome // 'survived'
 */
export interface CrashTaskMeta {
  runId: string
  /** The cell's place in the plan's `cells`. */
  index: number
  step: number
  fault: Fault
  outcome: CrashOutcome
  detail: string
  /** The stored variant. */
  variantId: string
}

/**
 * Reads the plan file named by `CRASHLAB_CRASH_PLAN`.
 *
 * @example
 * const { runId, cells } = readCrashPlanFile()
 */
export function readCrashPlanFile(path: string | undefined = process.env[CRASH_PLAN_ENV]): CrashPlanFile {
  if (!path) {
    throw new CrashlabError(
      'E_CLI_USAGE',
      `${CRASH_PLAN_ENV} is not set: the crash-test task files are run by \`crashlab crash-test <run> --vitest\`, not on their own.`,
    )
  }
  return JSON.parse(readFileSync(path, 'utf8')) as CrashPlanFile
}

/**
 * The cells of one task file, with their places in the matrix: dealt round-robin (cell i to file
 * i mod slots), so the files are the same on every machine for the same slots, which `--shard` needs,
 * and the steps of a row spread over the files.
 *
 * @example
 * crashCellsOfSlot(cells, 1, 4) // cells 1, 5, 9, … with their indexes
 */
export function crashCellsOfSlot(
  cells: readonly CrashCell[],
  slot: number,
  slots: number,
): Array<{ index: number; cell: CrashCell }> {
  return cells.flatMap((cell, index) => (index % slots === slot ? [{ index, cell }] : []))
}
