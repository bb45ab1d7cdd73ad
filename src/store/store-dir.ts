import { dirname, join, resolve } from 'node:path'
import type { OpenStoreOptions } from './types.ts'

/**
 * Where the store of this process is, without opening it: `options.dir`, else `$CRASHLAB_DIR`, else the
 * config file's `store.dir` (against the file's folder), else `.crashlab` beside the config file, else
 * `<cwd>/.crashlab`. Relative paths are taken against `cwd`.
 *
 * @example
 * await resolveStoreDir({ cwd: '/repo/packages/agent' }) // '/repo/.crashlab' when /repo holds crashlab.config.ts
 */
export async function resolveStoreDir(options: OpenStoreOptions = {}): Promise<string> {
  const cwd = options.cwd ?? process.cwd()
  const env = options.env ?? process.env
  if (options.dir) return resolve(cwd, options.dir)
  if (env.CRASHLAB_DIR) return resolve(cwd, env.CRASHLAB_DIR)
  // Loaded only when needed: the config loader brings jiti (~40 ms), which `crashlab ls --dir` never uses.
  const { loadConfig } = await import('../config/load-config.ts')
  const { path, config } = await loadConfig({ cwd, file: options.config, env })
  if (config.store?.dir) return resolve(path ? dirname(path) : cwd, config.store.dir)
  return path ? join(dirname(path), '.crashlab') : join(cwd, '.crashlab')
}
