import { resolve } from 'node:path'
import type { ListFilter, StoredRunSummary } from '../types.ts'
import type { IndexDb } from './index-db.ts'
import { summaryOf } from './index-row.ts'

/**
 * The runs of the index that pass `filter`, newest first, as summaries (paths against the store's
 * folder). `session: 'last'` is the newest indexed Vitest session.
 *
 * @example
 * listRuns(index, '/repo/.crashlab', { flagged: true, limit: 20 })
 */
export function listRuns(index: IndexDb, dir: string, filter: ListFilter = {}): StoredRunSummary[] {
  let wanted = filter
  if (filter.session !== undefined) {
    const session = filter.session === 'last' ? index.tests.newestSession() : filter.session.toUpperCase()
    if (!session) return []
    wanted = { ...filter, session }
  }
  return index
    .list(wanted)
    .map((row) => summaryOf(row, row.tags_json, (rel) => resolve(dir, rel), row.test_json))
}
