import { CrashlabError } from '../../errors.ts'

/** SQLite's primary result codes crashlab reacts to (extended codes carry them in their low byte). */
const SQLITE_PERM = 3
const SQLITE_BUSY = 5
const SQLITE_READONLY = 8
const SQLITE_IOERR = 10
const SQLITE_CORRUPT = 11
const SQLITE_FULL = 13
const SQLITE_CANTOPEN = 14
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

/** True for "attempt to write a readonly database" (a read-only file, folder or mount). */
export function isSqliteReadOnly(error: unknown): boolean {
  return sqliteCode(error) === SQLITE_READONLY
}

/** True when SQLite could not open or reach the file: permissions, a folder in its place, an I/O error. */
export function isSqliteAccess(error: unknown): boolean {
  const code = sqliteCode(error)
  return code === SQLITE_CANTOPEN || code === SQLITE_PERM || code === SQLITE_IOERR
}

export function isSqliteFull(error: unknown): boolean {
  return sqliteCode(error) === SQLITE_FULL
}

/** Any error node:sqlite raised (they carry SQLite's numeric `errcode`). */
export function isSqliteError(error: unknown): boolean {
  return sqliteCode(error) !== undefined
}

/**
 * The store folder (or its index) cannot be used at all: not a folder, no permission to read it.
 *
 * @example
 * throw accessError('/repo/.crashlab', 'it is a file, not a folder')
 */
export function accessError(dir: string, reason: string, cause?: unknown): CrashlabError {
  return new CrashlabError(
    'E_STORE_ACCESS',
    `the run store ${dir} cannot be used: ${reason}. Point crashlab at a store folder it can read ` +
      "(`--dir <folder>`, $CRASHLAB_DIR, or the config file's store.dir), or fix the permissions.",
    { cause, subject: dir },
  )
}

/**
 * A write (save, tag, journal) to a store this process may only read: a read-only folder or mount.
 * Reading commands work on such a store; this names what was refused.
 *
 * @example
 * throw readOnlyError('/mnt/ro/.crashlab', 'save run 01JH…')
 */
export function readOnlyError(dir: string, action: string, cause?: unknown): CrashlabError {
  return new CrashlabError(
    'E_STORE_READ_ONLY',
    `cannot ${action}: the run store ${dir} is read-only for this process (listing and showing runs work; ` +
      'saving, tagging and capturing do not). Nothing was changed. Use a writable store (`--dir <folder>` ' +
      'or $CRASHLAB_DIR), or make this one writable.',
    { cause, subject: dir },
  )
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
 * No run matches a ref; says what it was taken for, where it looked and how to see what is there.
 *
 * @example
 * throw notFoundError('01JH7', '/repo/.crashlab')
 */
export function notFoundError(ref: string, dir: string, inFlight = false, note = ''): CrashlabError {
  const what =
    ref === 'last'
      ? 'there is no stored run yet'
      : `no stored run matches "${ref}" (tried it as a run id or id prefix, a cassette path and a test's full name)`
  const extra =
    (inFlight ? ` Run ${ref} is still being recorded (its journal is in ${dir}/journal).` : '') +
    (note ? ` ${note}` : '')
  return new CrashlabError(
    'E_RUN_NOT_FOUND',
    `${what} in ${dir}.${extra} List the runs of the last Vitest run with \`crashlab ls --session last\`, ` +
      'every stored run with `crashlab ls` (add `--dir <store>` for another store).',
    { subject: ref },
  )
}

/**
 * A cassette file the index does not know: its test has not run under the plugin since it was
 * written, or its session was dropped.
 *
 * @example
 * throw unindexedCassetteError('/repo/test/__cassettes__/a.test.ts/x.cassette.json', '/repo/.crashlab')
 */
export function unindexedCassetteError(path: string, dir: string, id: string | undefined): CrashlabError {
  const what = id === undefined ? 'it does not load as a cassette' : `its run ${id} is not indexed`
  return new CrashlabError(
    'E_RUN_NOT_FOUND',
    `the cassette ${path} is not in the run store ${dir}: ${what}. Run its test again (the crashlab() ` +
      'plugin indexes the runs of every Vitest run; see `crashlab ls --session last`), or add it with ' +
      `\`crashlab import ${path}\`.`,
    { subject: path },
  )
}

/**
 * A test name that fits more than one indexed test: lists them as refs that name each one.
 *
 * @example
 * throw ambiguousTestError('clean refund', '/repo/.crashlab', [{ runId: '01JH…', file: 'a.test.ts', test: 'clean refund' }])
 */
export function ambiguousTestError(
  ref: string,
  dir: string,
  tests: ReadonlyArray<{ runId: string; file: string; test: string }>,
): CrashlabError {
  const shown = tests.slice(0, 10).map((t) => `  - ${t.runId}  "${t.file} > ${t.test}"`)
  return new CrashlabError(
    'E_RUN_AMBIGUOUS',
    `"${ref}" names more than one test in ${dir}:\n${shown.join('\n')}${tests.length > 10 ? '\n  … and more' : ''}\n` +
      'Give the test file too ("<file> > <test>", as Vitest prints it) or the run id.',
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
