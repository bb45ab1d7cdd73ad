import type { DatabaseSync } from 'node:sqlite'
import { INDEX_APPLICATION_ID, INDEX_VERSION, OLDEST_INDEX_VERSION, openReadOnly } from './index-db.ts'
import { ROW_COLUMNS } from './index-row.ts'
import { accessError, corruptError, isCorruption } from './store-errors.ts'

/** What an existing `index.db` turned out to be. */
export type Found = 'ours' | 'newer' | 'empty' | 'foreign'

/** Reads the header of an existing index without writing to it. */
export function probe(path: string): Found {
  let db: DatabaseSync | undefined
  try {
    db = openReadOnly(path)
    const pragma = (name: string) => Number(Object.values(db!.prepare(`PRAGMA ${name}`).get() ?? {})[0])
    const version = pragma('user_version')
    const appId = pragma('application_id')
    const tables = new Set(
      (
        db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>
      ).map((r) => r.name),
    )
    if (appId !== 0 && appId !== INDEX_APPLICATION_ID) return 'foreign'
    // A header crashlab wrote but nothing else: the first open of a store died before its schema was in.
    if (appId === 0 && version === 0 && tables.size === 0) return 'empty'
    if (!tables.has('runs') || !tables.has('tags'))
      return version > INDEX_VERSION && appId !== 0 ? 'newer' : 'foreign'
    if (version > INDEX_VERSION) return 'newer'
    // An older format of ours is upgraded when opened for writing (IndexDb.init).
    if (version < OLDEST_INDEX_VERSION) return 'foreign'
    const columns = new Set(
      (db.prepare('PRAGMA table_info(runs)').all() as Array<{ name: string }>).map((r) => r.name),
    )
    return ROW_COLUMNS.every((c) => columns.has(c)) ? 'ours' : 'foreign'
  } catch (error) {
    if (isCorruption(error)) throw corruptError(path, (error as Error).message, error)
    throw accessError(path, `the index cannot be opened (${(error as Error).message})`, error)
  } finally {
    if (db?.isOpen) db.close()
  }
}
