import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** The file names crashlab looks for, in this order, in each folder. */
export const CONFIG_FILE_NAMES = [
  'crashlab.config.ts',
  'crashlab.config.mts',
  'crashlab.config.js',
  'crashlab.config.mjs',
] as const

/**
 * Finds the project's config file: `$CRASHLAB_CONFIG` when set (resolved against `cwd`), else the first
 * `crashlab.config.{ts,mts,js,mjs}` in `cwd` or a folder above it, up to the nearest folder that holds a
 * `package.json` (the project root). Null when there is none: a config file is optional.
 *
 * @example
 * findConfigFile('/repo/packages/agent') // '/repo/packages/agent/crashlab.config.ts', or null
 */
export function findConfigFile(cwd: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.CRASHLAB_CONFIG
  if (named) return resolve(cwd, named)
  let dir = resolve(cwd)
  for (;;) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = join(dir, name)
      if (existsSync(candidate)) return candidate
    }
    const parent = dirname(dir)
    if (existsSync(join(dir, 'package.json')) || parent === dir) return null
    dir = parent
  }
}
