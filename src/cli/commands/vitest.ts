import { spawn } from 'node:child_process'
import { isRecordMode, RECORD_MODES } from '../../record-modes/index.ts'
import { findVitestBin } from '../../rerun/find-vitest-bin.ts'
import { EXPORTED_TEST_SUFFIX } from '../../rerun/index.ts'
import { defineCommand } from '../internal/command.ts'

/**
 * The arguments of `crashlab vitest` split in two: the record mode its `--record` flag asks for (a bare
 * `--record` is `all`), and everything else, for Vitest. Arguments after a `--` all go to Vitest.
 *
 * @example
 * splitRecordFlag(['--record=missing', 'run', 'test/refund.test.ts'])
 * // { mode: 'missing', vitestArgs: ['run', 'test/refund.test.ts'] }
 */
export function splitRecordFlag(args: readonly string[]): { mode: string | undefined; vitestArgs: string[] } {
  let mode: string | undefined
  const vitestArgs: string[] = []
  let rest = false
  for (const arg of args) {
    if (rest) vitestArgs.push(arg)
    else if (arg === '--') {
      rest = true
      vitestArgs.push(arg)
    } else if (arg === '--record') mode = 'all'
    else if (arg.startsWith('--record=')) mode = arg.slice('--record='.length)
    else vitestArgs.push(arg)
  }
  if (mode !== undefined && !isRecordMode(mode)) {
    throw new Error(
      `[crashlab] --record=${mode} is not a record mode: use one of ${RECORD_MODES.join(', ')}.`,
    )
  }
  return { mode, vitestArgs }
}

/**
 * `--prune` taken out of the arguments of `crashlab vitest` (Vitest's own CLI refuses flags it does not
 * know): whether it was given, and the rest for Vitest. Arguments after a `--` all go to Vitest.
 *
 * @example
 * splitPruneFlag(['run', '--prune']) // { prune: true, vitestArgs: ['run'] }
 */
export function splitPruneFlag(args: readonly string[]): { prune: boolean; vitestArgs: string[] } {
  const end = args.indexOf('--')
  const own = end === -1 ? [...args] : args.slice(0, end)
  const rest = end === -1 ? [] : args.slice(end)
  return { prune: own.includes('--prune'), vitestArgs: [...own.filter((a) => a !== '--prune'), ...rest] }
}

/**
 * The file name filter of `--exported`: the tests `crashlab export-test` writes (`*.crashlab.test.ts`).
 *
 * @example
 * EXPORTED_FILTER // '.crashlab.test.'
 */
export const EXPORTED_FILTER = EXPORTED_TEST_SUFFIX.replace(/ts$/, '')

/**
 * `--exported` as Vitest arguments: the switch is replaced by a file filter that keeps only the tests
 * `crashlab export-test` wrote (`*.crashlab.test.ts`), placed before any `--`.
 *
 * @example
 * exportedFilter(['run', '--exported']) // ['run', '.crashlab.test.']
 */
export function exportedFilter(args: readonly string[]): string[] {
  const end = args.indexOf('--')
  const own = end === -1 ? [...args] : args.slice(0, end)
  const rest = end === -1 ? [] : args.slice(end)
  if (!own.includes('--exported')) return [...args]
  return [...own.filter((a) => a !== '--exported'), EXPORTED_FILTER, ...rest]
}

export { findVitestBin }

/**
 * Runs the project's Vitest with `args`, `CRASHLAB_RECORD` set to `mode` when given, `CRASHLAB_PRUNE=1`
 * with `prune` (the plugin's reporter removes the unused cassettes and baselines after a whole run), the
 * same stdio, and resolves with its exit code.
 *
 * @example
 * process.exitCode = await runVitest(['run'], { mode: 'all' })
 */
export function runVitest(
  args: readonly string[],
  options: { mode?: string; cwd?: string; prune?: boolean } = {},
): Promise<number> {
  const cwd = options.cwd ?? process.cwd()
  const bin = findVitestBin(cwd)
  if (!bin) {
    console.error(
      `[crashlab] cannot find Vitest from ${cwd}: install it (npm i -D vitest) and run this in the project.`,
    )
    return Promise.resolve(1)
  }
  const env = { ...process.env }
  if (options.mode !== undefined) env.CRASHLAB_RECORD = options.mode
  if (options.prune) env.CRASHLAB_PRUNE = '1'
  else delete env.CRASHLAB_PRUNE
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: 'inherit' })
    // Ctrl-C reaches the child through the terminal's process group; the parent just waits for it.
    const ignore = () => {}
    process.on('SIGINT', ignore)
    child.on('error', (error) => {
      console.error(`[crashlab] could not start Vitest: ${error.message}`)
      done(1)
    })
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore)
      done(code ?? (signal ? 1 : 0))
    })
  })
}

/**
 * `crashlab vitest [--record[=all|missing|diverged|replay|off]] [--exported] [--prune] [vitest args…]`: runs
 * the project's Vitest, with the record mode in `CRASHLAB_RECORD` (Vitest's own CLI rejects unknown flags
 * such as `--record`); `--exported` keeps only the regression tests `crashlab export-test` wrote;
 * `--prune` (in `CRASHLAB_PRUNE`) removes the cassettes and baselines whose test no longer exists, after
 * a whole run only (no `-t`, no `--shard`, no file filter).
 * Everything but `--record` and `--prune` is passed to Vitest unchanged; the exit code is Vitest's.
 */
export const vitest = defineCommand({
  meta: {
    name: 'vitest',
    description:
      'Run Vitest; --record re-records cassettes (--record=missing records only missing ones, --record=diverged replays each cassette up to its first divergence and re-records only from there); --exported runs only the tests of `crashlab export-test`; --prune removes cassettes and baselines whose test no longer exists (whole runs only)',
  },
  async run({ rawArgs }) {
    let split: ReturnType<typeof splitRecordFlag>
    const pruned = splitPruneFlag(rawArgs)
    try {
      split = splitRecordFlag(exportedFilter(pruned.vitestArgs))
    } catch (error) {
      console.error((error as Error).message)
      process.exit(2)
    }
    process.exitCode = await runVitest(split.vitestArgs, { mode: split.mode, prune: pruned.prune })
  },
})
