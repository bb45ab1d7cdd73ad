import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * What every run of crashlab's work as Vitest tasks takes (`runVerifyTasks`, `runCrashTasks`): where the
 * store and the project are, how the tasks are dealt and sharded, and how Vitest reports.
 *
 * @example
 * const options: TaskRunOptions = { storeDir: '.crashlab', cwd: process.cwd(), shard: '1/2', reporters: ['blob'] }
 */
export interface TaskRunOptions {
  storeDir: string
  /** The project: Vitest runs there, and entry points are resolved there. */
  cwd: string
  config?: string | false
  /** How many task files share the work. Default 8 (fewer when there is less to share). */
  slots?: number
  /** Vitest's `--shard` (`1/2`). */
  shard?: string
  /** Vitest reporters to use instead of `default` (`blob` for a shard whose report is merged later). */
  reporters?: string[]
  /** Vitest's `--outputFile`. */
  outputFile?: string
  /** Runs `vitest --merge-reports <dir>` over the shards' blob reports instead of running tasks. */
  mergeReports?: string
  /** Extra environment for Vitest. */
  env?: NodeJS.ProcessEnv
  /** `inherit` (the default) shows Vitest's output; `pipe` keeps it for the caller. */
  stdio?: 'inherit' | 'pipe'
}

/** How the task files crashlab writes are named: Vitest projects include `*` + this. @example TASK_FILE_SUFFIX === '.crashlab-task.mjs' */
export const TASK_FILE_SUFFIX = '.crashlab-task.mjs'

/**
 * The URL of the package's Vitest tasks entry (`crashlab/tasks`), resolved the way Node resolves the
 * package's own exports, for the task files and configs to import: the core never imports Vitest, and it
 * does not know where the Vitest side's modules sit; it names the public entry that has them.
 *
 * @example
 * tasksEntryUrl() // 'file:///repo/node_modules/crashlab/dist/plugin/tasks/index.js'
 */
export function tasksEntryUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('crashlab/tasks')).href
}

/**
 * Writes `slots` task files named `<kind>-01.crashlab-task.mjs`, … into `dir`, each calling `fn(slot)`
 * of the Vitest tasks entry (`crashlab/tasks`); returns their paths. The files are the same on every machine
 * for the same `slots`, which is what `--shard` needs.
 *
 * @example
 * writeTaskFiles('/tmp/x', 'diagnose', 'defineDiagnoseTasks', 4)
 */
export function writeTaskFiles(dir: string, kind: string, fn: string, slots: number): string[] {
  mkdirSync(dir, { recursive: true })
  const files: string[] = []
  for (let slot = 0; slot < slots; slot++) {
    const file = join(dir, `${kind}-${String(slot + 1).padStart(2, '0')}${TASK_FILE_SUFFIX}`)
    writeFileSync(
      file,
      `// Written by crashlab: ${kind} tasks, share ${slot + 1} of ${slots}.\n` +
        `import { ${fn} } from ${JSON.stringify(tasksEntryUrl())}\n` +
        `await ${fn}(${slot})\n`,
    )
    files.push(file)
  }
  return files
}

/**
 * The task file a trial goes to. Trials come in pairs (patched-n, control-n): the patched one of pair p
 * goes to file p, its control half the files further on, so every file with two trials or more gets both
 * arms (plain `i mod slots` with an even number of files would give all the patched trials to the even
 * files and all the controls to the odd ones).
 *
 * @example
 * [0, 1, 2, 3].map((i) => slotOf(i, 2)) // [0, 1, 1, 0]
 */
export function slotOf(index: number, slots: number): number {
  return (Math.floor(index / 2) + (index % 2) * Math.ceil(slots / 2)) % slots
}

/**
 * Writes the Vitest config a run of task files uses into `dir` (the folder of the task files): the
 * project's folder as its root, only the task files, and Vitest's default reporter (or `vitestReporters`)
 * beside crashlab's reporter `reporter` (an export of `crashlab/tasks`, built with `reporterOptions`).
 * Vitest's `--reporter` replaces the config's reporters, crashlab's with them: reporters named here
 * keep it. Returns its path.
 *
 * @example
 * writeTasksConfig(tmp, { kind: 'crash', cwd, reporter: 'CrashlabCrashReporter', reporterOptions: { storeDir } })
 */
export function writeTasksConfig(
  dir: string,
  options: {
    kind: string
    cwd: string
    reporter: string
    reporterOptions: object
    vitestReporters?: readonly string[]
  },
): string {
  const named = (options.vitestReporters ?? ['default']).map((name) => JSON.stringify(name))
  const path = join(dir, `vitest.crashlab-${options.kind}.config.mjs`)
  writeFileSync(
    path,
    `// Written by crashlab ${options.kind} --vitest.\n` +
      `import { ${options.reporter} } from ${JSON.stringify(tasksEntryUrl())}\n` +
      'export default {\n' +
      `  root: ${JSON.stringify(options.cwd)},\n` +
      '  test: {\n' +
      `    dir: ${JSON.stringify(dir)},\n` +
      `    include: ['*${TASK_FILE_SUFFIX}'],\n` +
      '    exclude: [],\n' +
      `    reporters: [${named.join(', ')}, new ${options.reporter}(${JSON.stringify(options.reporterOptions)})],\n` +
      '  },\n' +
      '}\n',
  )
  return path
}

/**
 * The arguments of the Vitest run of task files, the bin first: `run`, or `--merge-reports <dir>` (the
 * shards' blob reports, and no task), then the config, `--shard`, the reporters and `--outputFile`.
 *
 * @example
 * tasksVitestArgs(bin, configPath, { shard: '1/2', reporters: ['blob'] })
 */
export function tasksVitestArgs(
  bin: string,
  configPath: string,
  options: { mergeReports?: string; shard?: string; reporters?: readonly string[]; outputFile?: string },
): string[] {
  const args = [bin, ...(options.mergeReports ? ['--merge-reports', resolve(options.mergeReports)] : ['run'])]
  args.push('--config', configPath)
  if (options.shard) args.push('--shard', options.shard)
  for (const reporter of options.reporters ?? []) args.push('--reporter', reporter)
  if (options.outputFile) args.push('--outputFile', resolve(options.outputFile))
  return args
}
