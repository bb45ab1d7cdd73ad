import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

/**
 * The path of the Vitest command of the project in `cwd` (its package's `bin`), or undefined.
 *
 * @example
 * findVitestBin(process.cwd()) // '/repo/node_modules/vitest/vitest.mjs'
 */
export function findVitestBin(cwd: string): string | undefined {
  try {
    const pkgPath = createRequire(join(resolve(cwd), 'noop.js')).resolve('vitest/package.json')
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin?: string | Record<string, string> }
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.vitest
    const path = bin ? join(dirname(pkgPath), bin) : undefined
    return path && existsSync(path) ? path : undefined
  } catch {
    return undefined
  }
}
