import { accessSync, constants, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { IndexDb } from './internal/index-db.ts'
import { listRuns } from './internal/list-runs.ts'
import { probe } from './internal/probe-index.ts'
import { resolveStoreDir } from './store-dir.ts'
import type { ListFilter, OpenStoreOptions, RunStore, StoredRunSummary } from './types.ts'

/** What `crashlab ls` reads of a store: its runs and its indexed Vitest sessions. */
export type RunIndexReader = Pick<RunStore, 'dir' | 'list' | 'sessions' | 'close'>

/**
 * Opens a store to list it: the SQLite index alone when it is ready to read, without the cassette
 * reading and writing (and the redaction) that the full store loads. When the store needs more than
 * reading — no index yet, one to repair or rebuild, a folder it cannot write, journals to finalize — it
 * is opened by `openStore`, which does all that, and listed through it. Either way the runs listed are
 * the same.
 *
 * @example
 * const index = await openRunIndex({ dir: '.crashlab' })
 * index.list({ flagged: true })
 * index.close()
 */
export async function openRunIndex(options: OpenStoreOptions = {}): Promise<RunIndexReader> {
  const dir = await resolveStoreDir(options)
  const index = readyIndex(dir)
  if (index) {
    return {
      dir,
      list: (filter: ListFilter = {}): StoredRunSummary[] => listRuns(index, dir, filter),
      sessions: () => index.tests.sessions(),
      close: () => index.close(),
    }
  }
  const { openStore } = await import('./open-store.ts')
  return openStore({ ...options, dir })
}

/**
 * The index of `dir` when the full store would open it as is: `index.db` is crashlab's, this process
 * may write the folder and the file, the folder is set up, and no journal waits to be finalized.
 * Undefined otherwise, and on any error: the full store then does the work, and says what is wrong.
 */
function readyIndex(dir: string): IndexDb | undefined {
  const path = join(dir, 'index.db')
  try {
    const info = statSync(path)
    if (!info.isFile() || info.size === 0) return undefined
    accessSync(dir, constants.W_OK)
    accessSync(path, constants.W_OK)
    if (!statSync(join(dir, 'runs')).isDirectory()) return undefined
    statSync(join(dir, '.gitignore'))
    if (readdirSync(join(dir, 'journal')).length > 0) return undefined
    if (probe(path) !== 'ours') return undefined
    return new IndexDb(path)
  } catch {
    return undefined
  }
}
