import { LocalRunStore } from './run-store.ts'
import { resolveStoreDir } from './store-dir.ts'
import type { OpenStoreOptions, RunStore } from './types.ts'

export { resolveStoreDir }

/**
 * Opens the local run store (creating it when missing) and finalizes the journals that dead processes
 * left there, as runs marked incomplete. Several processes may hold the same store open: the index is
 * SQLite in WAL mode, and every write is one short transaction. Close it when done (a process that
 * exits without closing loses nothing).
 *
 * @example
 * import { openStore } from 'crashlab'
 *
 * const store = await openStore()               // .crashlab/, $CRASHLAB_DIR, or the config's store.dir
 * const flagged = store.list({ flagged: true, limit: 20 })
 * const run = store.load('last')
 * store.tag(run.id, 'triaged')
 * store.close()
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<RunStore> {
  const store = new LocalRunStore(await resolveStoreDir(options))
  try {
    store.finalizeJournals()
  } catch (error) {
    store.close()
    throw error
  }
  return store
}
