import { inject } from 'vitest'
import { type CassetteStore, fileCassetteStore } from '../../src/internal.ts'

/**
 * The cassette store of this worker, for the baseline matcher: the file-system store with the plugin's
 * `cassetteDir`, which the plugin hands every worker with `project.provide('crashlab', …)` (the setup
 * file reads the same value, so a test's cassette and its baselines share a folder). Without the plugin
 * (or outside Vitest's runner) nothing is provided and the default folder, `__cassettes__`, is used.
 *
 * @example
 * const path = workerCassetteStore().baselinePath(test.file, test.name)
 */
export function workerCassetteStore(): CassetteStore {
  const cassetteDir = providedCassetteDir()
  if (cached === undefined || cached.cassetteDir !== cassetteDir)
    cached = { cassetteDir, store: fileCassetteStore({ cassetteDir }) }
  return cached.store
}

let cached: { cassetteDir: string | undefined; store: CassetteStore } | undefined

function providedCassetteDir(): string | undefined {
  try {
    // Looked up by key, not through the plugin's `ProvidedContext` declaration: the matchers do not
    // depend on the plugin.
    const provided = (inject as (key: string) => unknown)('crashlab') as { cassetteDir?: unknown } | undefined
    return typeof provided?.cassetteDir === 'string' ? provided.cassetteDir : undefined
  } catch {
    // Not in a Vitest worker: there is no provided config.
    return undefined
  }
}
