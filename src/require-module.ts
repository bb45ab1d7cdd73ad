/**
 * Loads a dependency when it is first needed rather than when crashlab is imported, synchronously, so
 * that a function that needs it keeps a synchronous API. The dependency's ES module build is loaded
 * with `require()` (Node ≥ 22.12 loads ES modules that way: the package asks for 22.13), which gives
 * the same module instance that `import` gives the user's own code: one msw, one zod in the process.
 * The specifier is resolved from crashlab's own folder, as its imports are. docs/architecture.md,
 * "Start-up", says which dependencies load this way and why.
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const loaded = new Map<string, unknown>()

/**
 * The module `specifier` names, loaded on the first call (the next calls return it at once).
 *
 * @example
 * const { z } = requireModule<typeof import('zod')>('zod')
 */
export function requireModule<T>(specifier: string): T {
  if (!loaded.has(specifier)) loaded.set(specifier, require(fileURLToPath(import.meta.resolve(specifier))))
  return loaded.get(specifier) as T
}

/**
 * Whether `requireModule` has loaded `specifier` in this process (for the start-up tests).
 *
 * @example
 * moduleRequired('zod') // false until a schema is first used
 */
export function moduleRequired(specifier: string): boolean {
  return loaded.has(specifier)
}
