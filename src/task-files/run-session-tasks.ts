import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { spawnVitest, vitestBin } from './run-verify-tasks.ts'
import type { ProvidedTasksConfig } from './select-runs.ts'
import { TASK_FILE_SUFFIX, tasksEntryUrl, writeTaskFiles } from './task-files.ts'

/**
 * Options of `runSessionTasks`.
 *
 * @example
 * const options: SessionTasksOptions = { storeDir: '.crashlab', cwd: process.cwd(), k: 3, slots: 4 }
 */
export interface SessionTasksOptions {
  storeDir: string
  cwd: string
  /** Trials per arm of each verification. */
  k: number
  /** Task files per project. */
  slots: number
  /** Propose fixes when a fixer model is configured. Default true. */
  fix?: boolean
  /** Also verify the best unverified fix of each run (`crashlab:verify`). Default true. */
  verify?: boolean
  stdio?: 'inherit' | 'pipe'
  env?: NodeJS.ProcessEnv
}

/**
 * Runs the session tasks over stored runs, in a Vitest run of their own: `crashlab:diagnose` (a
 * diagnosis per failed run, fixes when a model is configured), then `crashlab:verify` (one task per
 * fork of each best fix's verification), with `CrashlabVerifyReporter` drawing the verdicts. What the
 * plugin's `tasks` option adds to a test run, for runs already in the store (`crashlab diagnose --vitest`).
 *
 * @example
 * const { code } = await runSessionTasks({ tag: 'session:01J…' }, { storeDir: '.crashlab', cwd: '.', k: 3, slots: 4 })
 */
export async function runSessionTasks(
  select: ProvidedTasksConfig['select'],
  options: SessionTasksOptions,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = vitestBin(options.cwd)
  const tmp = mkdtempSync(join(tmpdir(), 'crashlab-tasks-'))
  try {
    const storeDir = resolve(options.storeDir)
    writeTaskFiles(tmp, 'diagnose', 'defineDiagnoseTasks', options.slots)
    if (options.verify !== false) {
      writeTaskFiles(tmp, 'verify', 'defineSessionVerifyTasks', options.slots)
    }
    const provide: { crashlabTasks: ProvidedTasksConfig } = {
      crashlabTasks: {
        storeDir,
        cwd: resolve(options.cwd),
        select,
        k: options.k,
        slots: options.slots,
        fix: options.fix ?? true,
      },
    }
    const project = (kind: string, groupOrder: number) =>
      `    { test: { name: 'crashlab:${kind}', dir: ${JSON.stringify(tmp)}, include: ['${kind}-*${TASK_FILE_SUFFIX}'], ` +
      `provide: ${JSON.stringify(provide)}, testTimeout: 600000, sequence: { groupOrder: ${groupOrder} } } },\n`
    const configPath = join(tmp, 'vitest.crashlab-tasks.config.mjs')
    writeFileSync(
      configPath,
      '// Written by crashlab diagnose --vitest.\n' +
        `import { CrashlabVerifyReporter } from ${JSON.stringify(tasksEntryUrl())}\n` +
        'export default {\n' +
        `  root: ${JSON.stringify(resolve(options.cwd))},\n` +
        '  test: {\n' +
        `    reporters: ['default', new CrashlabVerifyReporter({ storeDir: ${JSON.stringify(storeDir)} })],\n` +
        '    projects: [\n' +
        project('diagnose', 1) +
        (options.verify !== false ? project('verify', 2) : '') +
        '    ],\n' +
        '  },\n' +
        '}\n',
    )
    return await spawnVitest(
      [bin, 'run', '--config', configPath],
      options.cwd,
      { ...process.env, ...options.env },
      options.stdio ?? 'inherit',
    )
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}
