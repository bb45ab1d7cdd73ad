import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** How the task files crashlab writes are named: Vitest projects include `*` + this. @example TASK_FILE_SUFFIX === '.crashlab-task.mjs' */
export const TASK_FILE_SUFFIX = '.crashlab-task.mjs'

/**
 * The URL of one of the Vitest-side task modules (plugin/tasks), as the running copy of crashlab has it
 * (`.ts` from the sources, `.js` from the package), for the task files and configs to import: the core
 * never imports Vitest, it only names the modules that do.
 */
export function tasksModuleUrl(name: string): string {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  return new URL(`../../plugin/tasks/${name}${ext}`, import.meta.url).href
}

/**
 * Writes `slots` task files named `<kind>-01.crashlab-task.mjs`, … into `dir`, each calling `fn(slot)`
 * of the task module `module` (plugin/tasks); returns their paths. The files are the same on every machine
 * for the same `slots`, which is what `--shard` needs.
 *
 * @example
 * writeTaskFiles('/tmp/x', 'diagnose', 'session-tasks', 'defineDiagnoseTasks', 4)
 */
export function writeTaskFiles(
  dir: string,
  kind: string,
  module: string,
  fn: string,
  slots: number,
): string[] {
  mkdirSync(dir, { recursive: true })
  const files: string[] = []
  for (let slot = 0; slot < slots; slot++) {
    const file = join(dir, `${kind}-${String(slot + 1).padStart(2, '0')}${TASK_FILE_SUFFIX}`)
    writeFileSync(
      file,
      `// Written by crashlab: ${kind} tasks, share ${slot + 1} of ${slots}.\n` +
        `import { ${fn} } from ${JSON.stringify(tasksModuleUrl(module))}\n` +
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
