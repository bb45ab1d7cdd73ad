import type { TestRunEndReason, Vitest } from 'vitest/node'
import type { CassetteStore } from '../../src/internal.ts'

/**
 * What `crashlab vitest --prune` did at the end of a run: the files it removed, or why it removed none.
 *
 * @example
 * const result: PruneResult = { removed: [], failed: [], refused: 'the run was filtered by test name (-t)' }
 */
export interface PruneResult {
  removed: string[]
  /** Files that could not be removed (permissions, a file system error), with why. */
  failed: Array<{ path: string; reason: string }>
  /** Set when the run was not whole: nothing was removed, and this says why. */
  refused?: string
}

/**
 * Removes the unused cassettes and baselines the reporter found, when the run was whole. The tally only
 * names files of test files whose every test ran; a filter on the run as a whole (`-t`, `--shard`, a
 * file filter, `--changed`/`--related`, `--tags-filter`) or an interrupted run removes nothing at all,
 * so that a partial run never deletes anything, whatever it reached.
 *
 * @example
 * const { removed, refused } = pruneUnused(store, tally.unused, vitest, 'passed')
 */
export function pruneUnused(
  store: CassetteStore,
  unused: readonly string[],
  vitest: Vitest | undefined,
  reason: TestRunEndReason | undefined,
): PruneResult {
  const refused = partialRun(vitest, reason)
  if (refused !== undefined) return { removed: [], failed: [], refused }
  const result: PruneResult = { removed: [], failed: [] }
  for (const path of unused) {
    try {
      store.remove(path)
      result.removed.push(path)
    } catch (error) {
      // One file that cannot go does not stop the others, nor the end of the run.
      result.failed.push({ path, reason: error instanceof Error ? error.message : String(error) })
    }
  }
  return result
}

/**
 * Why this run is not a whole run, read from Vitest's resolved config; undefined when it is. Vitest
 * keeps the command line's file filters on the `Vitest` object (`filenamePattern`), not in the config.
 */
export function partialRun(
  vitest: Vitest | undefined,
  reason: TestRunEndReason | undefined,
): string | undefined {
  if (vitest === undefined) return 'the run could not be inspected'
  if (reason === 'interrupted') return 'the run was interrupted'
  const config = vitest.config
  if (config.testNamePattern !== undefined) return 'the run was filtered by test name (-t)'
  if (config.shard !== undefined)
    return `the run is one shard (--shard=${config.shard.index}/${config.shard.count})`
  // Vitest keeps the file filters on an internal field: a Vitest without it cannot say whether files
  // were filtered, so nothing is removed.
  if (!('filenamePattern' in vitest)) return 'this Vitest does not say whether the run was filtered by file'
  const files = (vitest as { filenamePattern?: readonly string[] }).filenamePattern
  if (files !== undefined && files.length > 0) return `the run was filtered by file (${files.join(', ')})`
  if (config.changed !== undefined && config.changed !== false)
    return 'the run was limited to changed files (--changed)'
  if (config.related !== undefined && config.related.length > 0)
    return 'the run was limited to related files (--related)'
  if (config.tagsFilter !== undefined && config.tagsFilter.length > 0)
    return 'the run was filtered by tags (--tags-filter)'
  return undefined
}
