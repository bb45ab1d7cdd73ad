import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Fault } from '../crash/faults.ts'
import type { CrashCell } from '../crash/inject.ts'
import type { CrashCellResult } from '../crash/judge.ts'
import { CRASH_PLAN_ENV, type CrashPlanFile } from './crash-plan-file.ts'
import { DEFAULT_SLOTS, spawnVitest, vitestBin } from './run-verify-tasks.ts'
import { type TaskRunOptions, tasksVitestArgs, writeTaskFiles, writeTasksConfig } from './task-files.ts'

/**
 * A crash test to run as Vitest tasks: the run, the faults and steps asked for, and the cells they
 * make (`crashCells`), in the matrix's order.
 *
 * @example
 * const plan: CrashTasksPlan = { runId: run.id, faults, cells: crashCells(run, faults) }
 */
export interface CrashTasksPlan {
  runId: string
  faults: Fault[]
  steps?: number[]
  cells: CrashCell[]
}

/**
 * Options of `runCrashTasks`.
 *
 * @example
 * const options: CrashTasksOptions = { storeDir: '.crashlab', cwd: process.cwd(), shard: '1/2', reporters: ['blob'] }
 */
export type CrashTasksOptions = TaskRunOptions

/**
 * What a run of the crash-test tasks gave: Vitest's exit code, its output when piped, and the matrix the
 * reporter gathered (none for a shard alone: its share is merged later).
 *
 * @example
 * const { code, matrix } = await runCrashTasks(plan, options)
 */
export interface CrashTasksResult {
  code: number
  stdout: string
  stderr: string
  matrix: { runId: string; cells: CrashCellResult[] } | null
}

/**
 * Runs a crash test as Vitest tasks: writes the plan, the task files (cells dealt round-robin by
 * `crashCellsOfSlot`) and a Vitest config with `CrashlabCrashReporter` to a temporary folder, and runs
 * the project's Vitest on them. Every cell is its own test; the files run in parallel over the worker
 * pool, `--shard` spreads them over machines, and `--merge-reports` over the shards' blob reports gives
 * the matrix of one run. With `mergeReports`, no task runs: only the reporter, over the merged reports.
 *
 * @example
 * const plan = { runId: run.id, faults, cells: crashCells(run, faults) }
 * const { matrix } = await runCrashTasks(plan, { storeDir: store.dir, cwd: process.cwd() })
 */
export async function runCrashTasks(
  plan: CrashTasksPlan | null,
  options: CrashTasksOptions,
): Promise<CrashTasksResult> {
  const bin = vitestBin(options.cwd, "the crash test's cells", 'E_CLI_USAGE')
  const tmp = mkdtempSync(join(tmpdir(), 'crashlab-crash-'))
  try {
    const resultFile = join(tmp, 'matrix.json')
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
    if (plan) {
      const slots = Math.max(1, Math.min(options.slots ?? DEFAULT_SLOTS, plan.cells.length))
      const file: CrashPlanFile = {
        storeDir: resolve(options.storeDir),
        cwd: resolve(options.cwd),
        ...(options.config !== undefined && { config: options.config }),
        runId: plan.runId,
        faults: plan.faults,
        ...(plan.steps && { steps: plan.steps }),
        cells: plan.cells,
        slots,
      }
      const planPath = join(tmp, 'plan.json')
      writeFileSync(planPath, JSON.stringify(file))
      env[CRASH_PLAN_ENV] = planPath
      writeTaskFiles(tmp, 'crash', 'defineCrashTasks', slots)
    }
    const configPath = writeTasksConfig(tmp, {
      kind: 'crash-test',
      cwd: resolve(options.cwd),
      reporter: 'CrashlabCrashReporter',
      reporterOptions: { storeDir: resolve(options.storeDir), resultFile },
      // In the config rather than on the command line, so that a shard's own reporter (blob) does not
      // replace crashlab's, which prints the shard's counts.
      ...(options.reporters && { vitestReporters: options.reporters }),
    })
    const args = tasksVitestArgs(bin, configPath, { ...options, reporters: undefined })
    const { code, stdout, stderr } = await spawnVitest(args, options.cwd, env, options.stdio ?? 'inherit')
    let matrix: CrashTasksResult['matrix'] = null
    try {
      matrix = JSON.parse(readFileSync(resultFile, 'utf8')) as CrashTasksResult['matrix']
    } catch {
      // No matrix: a shard, or a run that failed before its end.
    }
    return { code, stdout, stderr, matrix }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}
