import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Whether crashlab runs from its TypeScript sources (the repository's own tests) or from the built package. */
export const FROM_SOURCE: boolean = import.meta.url.endsWith('.ts')

let root: string | null | undefined

/**
 * The folder of the crashlab package (the one holding its package.json), or undefined when it cannot be
 * found. Found by walking up from this module, so the answer is the same from `src/` (the sources),
 * `dist/src/` or `dist/chunks/` (the bundled package, where this code may sit in a shared chunk).
 *
 * @example
 * packageRoot() // '/home/me/app/node_modules/crashlab'
 */
export function packageRoot(): string | undefined {
  if (root !== undefined) return root ?? undefined
  root = null
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let depth = 0; depth < 6; depth++) {
    if (readManifest(join(dir, 'package.json'))?.name === 'crashlab') {
      root = dir
      break
    }
    dir = dirname(dir)
  }
  return root ?? undefined
}

/** The package's own package.json, parsed; undefined when it cannot be found. */
export function packageManifest(): { name?: string; version?: string } | undefined {
  const dir = packageRoot()
  return dir === undefined ? undefined : readManifest(join(dir, 'package.json'))
}

/**
 * A module of the package by its source path: the source itself when crashlab runs from source, else
 * the built file under `dist/`. For modules that are loaded by path (the plugin's setup file, a stored
 * run's entry point): a bundled module does not know its own entry file from `import.meta.url`.
 *
 * @example
 * packageModule('plugin/setup.ts') // '/home/me/app/node_modules/crashlab/dist/plugin/setup.js'
 */
export function packageModule(sourcePath: string): string {
  const dir = packageRoot()
  if (dir === undefined) throw new Error('[crashlab] cannot find its own package.json: reinstall crashlab')
  return FROM_SOURCE ? join(dir, sourcePath) : join(dir, 'dist', sourcePath.replace(/\.ts$/, '.js'))
}

function readManifest(path: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string }
  } catch {
    return undefined
  }
}
