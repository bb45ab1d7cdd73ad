import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

function findVersion(): string {
  // The same code runs from src/ (tests) and from dist/src/ (the package): walk up to our package.json.
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string
        version?: string
      }
      if (pkg.name === 'crashlab' && pkg.version) return pkg.version
    } catch {
      // not here; go up
    }
    dir = dirname(dir)
  }
  return '0.0.0'
}

/** The version of this crashlab package, as written into every cassette's `creator`. */
export const VERSION: string = findVersion()
