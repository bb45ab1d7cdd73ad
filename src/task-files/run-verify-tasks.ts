import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Trial, Verification } from '../case/schema/run.ts'
import { CrashlabError, type ErrorCode } from '../errors.ts'
import { findVitestBin } from '../rerun/find-vitest-bin.ts'
import type { VerifyPlan } from '../verify/verify.ts'
import { type TaskRunOptions, tasksVitestArgs, writeTaskFiles, writeTasksConfig } from './task-files.ts'
import { VERIFY_PLAN_ENV, type VerifyPlanFile } from './verify-plan-file.ts'

/** Task files a verification is spread over unless told: a fixed number, so every shard sees the same files. @example DEFAULT_SLOTS === 8 */
export const DEFAULT_SLOTS = 8

/**
 * Options of `runVerifyTasks`.
 *
 * @example
 * const options: VerifyTasksOptions = { storeDir: '.crashlab', cwd: process.cwd(), shard: '1/2', reporters: ['blob'] }
 */
export interface VerifyTasksOptions extends TaskRunOptions {
  baseUrl?: string
  /**
   * One round of a sequential verification: the plan holds this round's trials only; the reporter puts
   * the earlier rounds' trials first and draws the verdict so far.
   */
  rounds?: { priorTrials: Trial[] }
}

/**
 * What a run of the verify tasks gave: Vitest's exit code, its output when piped, and the verdicts the
 * reporter drew (none for a shard: its share is merged later).
 *
 * @example
 * const { code, verdicts } = await runVerifyTasks(plan, options)
 */
export interface VerifyTasksResult {
  code: number
  stdout: string
  stderr: string
  verdicts: Record<string, Record<string, Verification>>
}

/**
 * Runs a verification as Vitest tasks: writes the plan, the task files (trials dealt by `slotOf`) and
 * a Vitest config with `CrashlabVerifyReporter` to a temporary folder, and runs the project's Vitest on
 * them. Every fork is its own test; the files run in parallel over the worker pool, `--shard` spreads
 * them over machines, and `--merge-reports` over the shards' blob reports draws the same verdicts as one
 * run. With `mergeReports`, no task runs: only the reporter, over the merged reports.
 *
 * @example
 * const plan = planVerification(run, { fix: 'fix-1', k: 10, store })
 * const { verdicts } = await runVerifyTasks(plan, { storeDir: store.dir, cwd: process.cwd() })
 */
export async function runVerifyTasks(
  plan: VerifyPlan | null,
  options: VerifyTasksOptions,
): Promise<VerifyTasksResult> {
  const bin = vitestBin(options.cwd)
  const tmp = mkdtempSync(join(tmpdir(), 'crashlab-verify-'))
  try {
    const resultFile = join(tmp, 'verdicts.json')
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
    if (plan) {
      const slots = Math.max(1, Math.min(options.slots ?? DEFAULT_SLOTS, plan.trials.length))
      const file: VerifyPlanFile = {
        storeDir: resolve(options.storeDir),
        cwd: resolve(options.cwd),
        ...(options.baseUrl && { baseUrl: options.baseUrl }),
        ...(options.config !== undefined && { config: options.config }),
        plan,
        slots,
      }
      const planPath = join(tmp, 'plan.json')
      writeFileSync(planPath, JSON.stringify(file))
      env[VERIFY_PLAN_ENV] = planPath
      writeTaskFiles(tmp, 'verify', 'defineVerifyTasks', slots)
    }
    const reporterOptions = {
      storeDir: resolve(options.storeDir),
      resultFile,
      ...(options.rounds && { rounds: options.rounds }),
    }
    const configPath = writeTasksConfig(tmp, {
      kind: 'verify',
      cwd: resolve(options.cwd),
      reporter: 'CrashlabVerifyReporter',
      reporterOptions,
    })
    const args = tasksVitestArgs(bin, configPath, options)
    const { code, stdout, stderr } = await spawnVitest(args, options.cwd, env, options.stdio ?? 'inherit')
    let verdicts: VerifyTasksResult['verdicts'] = {}
    try {
      verdicts = JSON.parse(readFileSync(resultFile, 'utf8')) as VerifyTasksResult['verdicts']
    } catch {
      // No verdict: a shard, or a run that failed before its end.
    }
    return { code, stdout, stderr, verdicts }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** Runs the project's Vitest with `args` (the bin first). */
export function spawnVitest(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  stdio: 'inherit' | 'pipe',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env,
      stdio: stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', (error) => fail(error))
    child.on('exit', (code, signal) => done({ code: code ?? (signal ? 1 : 0), stdout, stderr }))
  })
}

/** The project's Vitest bin, or a CrashlabError saying how to get one (`what`: what `--vitest` runs as tasks). */
export function vitestBin(cwd: string, what = 'the forks', code: ErrorCode = 'E_VERIFY_FIX'): string {
  const bin = findVitestBin(cwd)
  if (bin) return bin
  throw new CrashlabError(
    code,
    `cannot find Vitest from ${cwd}: --vitest runs ${what} as Vitest tasks of the project; install it there (npm i -D vitest), or pass --cwd.`,
  )
}
