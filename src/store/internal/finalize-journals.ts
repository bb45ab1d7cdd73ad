import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Run } from '../../case/schema/run.ts'
import { writerAlive } from './process-alive.ts'
import { parseJournal, runFromJournal } from './read-journal.ts'

const JOURNAL = /^([0-9A-HJKMNP-TV-Z]{26})\.jsonl$/
/** A journal a finalizer claimed: `<id>.jsonl.<pid>.finalizing`. */
const CLAIMED = /^([0-9A-HJKMNP-TV-Z]{26})\.jsonl\.(\d+)\.finalizing$/
/** A journal being created (before its first line is in): `.<id>.<pid>.tmp`. */
const CREATING = /^\.([0-9A-HJKMNP-TV-Z]{26})\.(\d+)\.tmp$/

/** What finalizing needs from the store. */
export interface FinalizeTarget {
  dir: string
  has(id: string): boolean
  save(run: Run): void
}

/**
 * Turns the journals of dead processes into stored runs marked incomplete, and returns how many.
 *
 * Several processes may open the store at once and all look at the same journals, so a journal is
 * first claimed by renaming it to `<id>.jsonl.<pid>.finalizing` (a rename is atomic: one process wins,
 * the others find it gone and move on). A claim left by a finalizer that died is taken over the same way.
 * A journal whose run is already in the index (the process died between saving the run and removing its
 * journal) is removed without saving again. A journal with no readable first line holds no step (a
 * journal gets its name only once its first line is written and fsync'd) and is removed, as is the temp
 * file of a journal whose process died while creating it.
 *
 * @example
 * const count = finalizeJournals({ dir, has: (id) => index.has(id), save: (run) => store.save(run) })
 */
export function finalizeJournals(target: FinalizeTarget): number {
  const folder = join(target.dir, 'journal')
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return 0
  }
  let finalized = 0
  for (const name of names) {
    const creating = CREATING.exec(name)
    if (creating) {
      // Its process died before the first line was in: it holds nothing.
      if (!writerAlive({ pid: Number(creating[2]) }, creating[1] as string))
        rmSync(join(folder, name), { force: true })
      continue
    }
    const claimed = CLAIMED.exec(name)
    if (!JOURNAL.test(name) && !claimed) continue
    const path = join(folder, name)
    if (claimed) {
      const pid = Number(claimed[2])
      if (pid !== process.pid && writerAlive({ pid }, claimed[1] as string)) continue
    } else if (isAlive(path)) {
      continue
    }
    const mine = join(folder, `${claimed?.[1] ?? name.slice(0, 26)}.jsonl.${process.pid}.finalizing`)
    if (path !== mine) {
      try {
        renameSync(path, mine)
      } catch {
        continue // another process claimed it first
      }
    }
    if (finalizeOne(target, mine)) finalized++
  }
  return finalized
}

function isAlive(path: string): boolean {
  const parsed = readHead(path)
  // No readable first line: nothing to keep, and nobody could still be writing a step after it.
  if (!parsed) return false
  return writerAlive(parsed, parsed.id)
}

function readHead(path: string): NonNullable<ReturnType<typeof parseJournal>>['head'] | undefined {
  try {
    const text = readFileSync(path, 'utf8')
    const end = text.indexOf('\n')
    return parseJournal(end < 0 ? '' : text.slice(0, end + 1))?.head
  } catch {
    return undefined
  }
}

function finalizeOne(target: FinalizeTarget, path: string): boolean {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return false
  }
  const parsed = parseJournal(text)
  let saved = false
  try {
    if (parsed && !target.has(parsed.head.id)) {
      target.save(runFromJournal(parsed))
      saved = true
    }
  } catch (error) {
    // Kept aside rather than retried at every open: a journal that cannot be saved must not stop the store.
    const aside = path.replace(/\.\d+\.finalizing$/, '.failed')
    renameSync(path, aside)
    process.emitWarning(
      `[crashlab] could not save the interrupted run of ${aside}: ${(error as Error).message}. It was set aside; delete it when you no longer need it.`,
      { code: 'CRASHLAB_STORE' },
    )
    return false
  }
  rmSync(path, { force: true })
  return saved
}
