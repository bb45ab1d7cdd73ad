import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { loadCassette } from '../../case/cassette-load.ts'
import type { IndexDb } from './index-db.ts'
import { rowOf } from './index-row.ts'

const CASSETTE = /^[0-9A-HJKMNP-TV-Z]{26}\.cassette\.json$/

/**
 * Fills an empty index from the cassettes under `<dir>/runs/`: what happens when `index.db` is missing
 * (deleted, or moved away after `E_STORE_CORRUPT`). The index is only a cache of the cassettes, so
 * everything comes back but the tags added in the store after a run was saved (a cassette holds the
 * tags the run was saved with). Cassettes that do not load are skipped with a warning naming them.
 * Rows go in by transactions of 500. Returns how many runs were indexed.
 *
 * @example
 * if (!existsSync(indexPath)) rebuildIndex(dir, new IndexDb(indexPath))
 */
export function rebuildIndex(dir: string, index: IndexDb): number {
  let names: string[]
  try {
    names = readdirSync(join(dir, 'runs')).filter((n) => CASSETTE.test(n))
  } catch {
    return 0
  }
  const skipped: string[] = []
  let batch: Array<Parameters<IndexDb['upsertMany']>[0][number]> = []
  let count = 0
  for (const name of names) {
    const rel = `runs/${name}`
    try {
      const { run } = loadCassette(join(dir, rel), { binaries: false })
      batch.push({ row: rowOf(run, rel), tags: run.tags })
    } catch {
      skipped.push(rel)
      continue
    }
    if (batch.length >= 500) {
      index.upsertMany(batch)
      count += batch.length
      batch = []
    }
  }
  if (batch.length > 0) index.upsertMany(batch)
  count += batch.length
  if (skipped.length > 0) {
    process.emitWarning(
      `[crashlab] rebuilding the run index of ${dir} skipped ${skipped.length} cassette(s) that do not load: ` +
        `${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}. Check them with \`crashlab validate <file>\`.`,
      { code: 'CRASHLAB_STORE' },
    )
  }
  return count
}
