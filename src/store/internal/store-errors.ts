import { CrashlabError } from '../../errors.ts'

/** SQLite's primary result codes crashlab reacts to (extended codes carry them in their low byte). */
const SQLITE_BUSY = 5
const SQLITE_CORRUPT = 11
const SQLITE_NOTADB = 26

function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode
  return typeof code === 'number' ? code & 0xff : undefined
}

/** True for "file is not a database" and "database disk image is malformed". */
export function isCorruption(error: unknown): boolean {
  const code = sqliteCode(error)
  return code === SQLITE_CORRUPT || code === SQLITE_NOTADB
}

export function isSqliteBusy(error: unknown): boolean {
  return sqliteCode(error) === SQLITE_BUSY
}

/**
 * The index cannot be read: it names the file, why, and what to do (the index is only a cache of the
 * cassettes under `runs/`, so moving it away loses nothing but tags added after a run was saved).
 *
 * @example
 * throw corruptError('/repo/.crashlab/index.db', 'file is not a database')
 */
export function corruptError(path: string, reason: string, cause?: unknown, newer = false): CrashlabError {
  const next = newer
    ? 'Upgrade crashlab, or point this process at another store (`dir` option or CRASHLAB_DIR).'
    : `Move it away (with any ${path}-wal and ${path}-shm beside it); the next openStore() or \`crashlab ls\` ` +
      'rebuilds the index from the cassettes under runs/ (tags added with `crashlab tag` after a run was saved are lost).'
  return new CrashlabError('E_STORE_CORRUPT', `the run index ${path} cannot be read: ${reason}. ${next}`, {
    cause,
    subject: path,
  })
}

export function busyError(path: string, waitedMs: number, cause: unknown): CrashlabError {
  return new CrashlabError(
    'E_WRITE_FAILED',
    `the run index ${path} stayed locked by another process for ${waitedMs / 1000} s. Nothing was changed; ` +
      'check for a process stuck while holding it (a debugger paused in crashlab), then try again.',
    { cause, subject: path },
  )
}

/**
 * No run matches a ref; says where it looked and how to see what is there.
 *
 * @example
 * throw notFoundError('01JH7', '/repo/.crashlab')
 */
export function notFoundError(ref: string, dir: string, inFlight = false): CrashlabError {
  const what = ref === 'last' ? 'there is no stored run yet' : `no stored run matches "${ref}"`
  const extra = inFlight ? ` Run ${ref} is still being recorded (its journal is in ${dir}/journal).` : ''
  return new CrashlabError(
    'E_RUN_NOT_FOUND',
    `${what} in ${dir}.${extra} List the stored runs with \`crashlab ls\` (or \`crashlab ls --dir <store>\` for another store).`,
    { subject: ref },
  )
}

export function ambiguousError(
  ref: string,
  dir: string,
  candidates: readonly string[],
  more: boolean,
): CrashlabError {
  const list = candidates.map((id) => `  - ${id}`).join('\n')
  return new CrashlabError(
    'E_RUN_AMBIGUOUS',
    `"${ref}" matches more than one stored run in ${dir}:\n${list}${more ? '\n  … and more' : ''}\n` +
      'Give more characters of the id (see `crashlab ls`).',
    { subject: ref },
  )
}
