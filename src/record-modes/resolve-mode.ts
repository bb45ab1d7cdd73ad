import { parseMode } from './parse-mode.ts'
import type { RecordMode } from './types.ts'

/**
 * Everything the record switch can come from, gathered by the plugin.
 *
 * @example
 * const inputs: ModeInputs = { env: process.env, argv: process.argv, viteMode: 'test', updateSnapshot: 'new' }
 */
export interface ModeInputs {
  /** `CRASHLAB_RECORD` is read from here (the `crashlab vitest --record` bin sets it). */
  env: Record<string, string | undefined>
  /** `vitest run -- --record` and `-- --record=missing` are read from here. */
  argv: readonly string[]
  /** Vite's mode: `vitest --mode record` means `all`, `--mode record:<mode>` that mode (`record:diverged`). */
  viteMode?: string
  /** The plugin's `mode` option: replaces the default, loses to an explicit switch. */
  option?: RecordMode
  /** Vitest's snapshot update policy: `none` under CI (replay by default), `new` locally, `all` with `-u`. */
  updateSnapshot?: 'all' | 'new' | 'none' | string
}

/**
 * The resolved mode and what decided it, for messages.
 *
 * @example
 * const { mode, source } = resolveMode(inputs) // { mode: 'all', source: 'CRASHLAB_RECORD=all' }
 */
export interface ResolvedMode {
  mode: RecordMode
  source: string
}

/**
 * Resolves the record mode. First match wins: `CRASHLAB_RECORD=all|missing|diverged|replay|off` (also
 * set by `npx crashlab vitest --record[=<mode>]`), `--record` / `--record=<mode>` after `--` on Vitest's
 * command line, `vitest --mode record` (`all`) or `--mode record:<mode>`, the plugin's `mode` option,
 * then the default: `replay` when Vitest does not write snapshots (`CI=true` without `-u`), `missing`
 * otherwise.
 *
 * @example
 * resolveMode({ env: {}, argv: ['vitest', 'run', '--', '--record'] }).mode          // 'all'
 * resolveMode({ env: {}, argv: [], updateSnapshot: 'none' }).mode                  // 'replay'
 * resolveMode({ env: { CRASHLAB_RECORD: 'missing' }, argv: [] }).mode              // 'missing'
 * resolveMode({ env: {}, argv: [], viteMode: 'record:diverged' }).mode             // 'diverged'
 */
export function resolveMode(inputs: ModeInputs): ResolvedMode {
  const fromEnv = inputs.env.CRASHLAB_RECORD
  if (fromEnv !== undefined && fromEnv !== '') {
    return { mode: parseMode(fromEnv, 'CRASHLAB_RECORD'), source: `CRASHLAB_RECORD=${fromEnv}` }
  }
  const flag = [...inputs.argv].reverse().find((a) => a === '--record' || a.startsWith('--record='))
  if (flag !== undefined) {
    const value = flag === '--record' ? 'all' : flag.slice('--record='.length)
    return { mode: parseMode(value, '--record'), source: flag }
  }
  if (inputs.viteMode === 'record') return { mode: 'all', source: '--mode record' }
  if (inputs.viteMode?.startsWith('record:')) {
    const source = `--mode ${inputs.viteMode}`
    return { mode: parseMode(inputs.viteMode.slice('record:'.length), source), source }
  }
  if (inputs.option !== undefined) {
    return {
      mode: parseMode(inputs.option, 'the `mode` option'),
      source: `crashlab({ mode: '${inputs.option}' })`,
    }
  }
  if (inputs.updateSnapshot === 'none') return { mode: 'replay', source: 'default under CI' }
  return { mode: 'missing', source: 'default' }
}
