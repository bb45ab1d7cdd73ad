import { randomBytes } from 'node:crypto'
import {
  accessSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { IndexDb } from './index-db.ts'
import { type Found, probe } from './probe-index.ts'
import { rebuildIndex } from './rebuild-index.ts'
import { accessError, corruptError } from './store-errors.ts'

/** What `openIndex` opened: the index, and whether this process may only read the store. */
export interface OpenedIndex {
  index: IndexDb
  readOnly: boolean
}

/**
 * Opens the index of the store in `dir`, preparing the folder first. Every way this can fail is a
 * CrashlabError: the folder is a file or cannot be read (`E_STORE_ACCESS`), `index.db` is a folder or
 * a damaged database (`E_STORE_CORRUPT`). What it repairs on its own:
 *
 * - no `index.db`: one is built from the cassettes under `runs/`, in a temp file renamed into place, so
 *   that another process never sees a half-made index;
 * - an `index.db` of zero bytes, or an SQLite database that is not crashlab's: it is moved aside (to
 *   `index.db.moved-<time>`, never over an existing file) and the index is rebuilt, with a warning;
 * - a store this process cannot write (a read-only folder, file or mount): the index is opened read-only,
 *   or, when it cannot be used as is, built in memory from the cassettes. Writes are then
 *   `E_STORE_READ_ONLY`.
 *
 * @example
 * const { index, readOnly } = openIndex('/repo/.crashlab')
 */
export function openIndex(dir: string): OpenedIndex {
  prepareFolder(dir)
  const path = join(dir, 'index.db')
  // A file moved aside and rebuilt by another process between our look and our move: look again.
  for (let attempt = 1; ; attempt++) {
    const dirWritable = writable(dir)
    const info = statOf(path)
    if (info && !info.isFile()) {
      throw corruptError(
        path,
        `it is ${info.isDirectory() ? 'a folder' : 'not a regular file'}, not an index file`,
      )
    }
    const readOnly = !dirWritable || (info !== undefined && !writable(path))
    let found: Found | undefined
    if (info) found = info.size === 0 ? 'empty' : probe(path)
    if (found === 'newer') {
      throw corruptError(path, 'it was written by a newer crashlab', undefined, true)
    }
    if (found === 'ours') {
      if (!readOnly) return { index: new IndexDb(path), readOnly }
      try {
        return { index: new IndexDb(path, { readOnly }), readOnly }
      } catch (error) {
        // A read-only index this SQLite cannot open as is: the cassettes are the data, read them.
        if ((error as { code?: string }).code !== 'E_STORE_ACCESS') throw error
        return inMemory(dir, path, undefined)
      }
    }
    if (readOnly) return inMemory(dir, path, found)
    if (found !== undefined) {
      if (!moveAside(path, info!.ino, found) && attempt < 3) continue
    }
    createIndex(dir, path)
    return { index: new IndexDb(path), readOnly: false }
  }
}

/** The folder exists, is a folder, can be read; `runs/`, `journal/` and `.gitignore` when it can be written. */
function prepareFolder(dir: string): void {
  let info = statOf(dir)
  if (!info) {
    try {
      mkdirSync(dir, { recursive: true })
    } catch (cause) {
      throw accessError(dir, `the folder could not be created (${(cause as Error).message})`, cause)
    }
    info = statOf(dir)
  }
  if (!info?.isDirectory()) throw accessError(dir, 'it is a file, not a folder')
  try {
    readdirSync(dir)
  } catch (cause) {
    throw accessError(
      dir,
      `the folder cannot be read (${(cause as NodeJS.ErrnoException).code ?? cause})`,
      cause,
    )
  }
  if (!writable(dir)) return
  try {
    mkdirSync(join(dir, 'runs'), { recursive: true })
    mkdirSync(join(dir, 'journal'), { recursive: true })
    // Runs captured in production hold real conversations: keep them out of version control by default.
    const ignore = join(dir, '.gitignore')
    if (!existsSync(ignore))
      writeFileSync(ignore, '# crashlab run store: local data, not for version control\n*\n')
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code
    if (code === 'ENOTDIR' || code === 'EEXIST')
      throw accessError(dir, `${join(dir, 'runs')} or ${join(dir, 'journal')} is a file, not a folder`, cause)
    throw accessError(dir, `its folders could not be created (${(cause as Error).message})`, cause)
  }
}

function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path)
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ENOTDIR') throw accessError(path, 'a part of its path is a file, not a folder', cause)
    throw accessError(path, `it cannot be looked at (${code ?? cause})`, cause)
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Moves an `index.db` that is not crashlab's (or is empty) out of the way, with its `-wal` and `-shm`,
 * under a name nothing has. False when the file changed since it was looked at (another process
 * repaired the store first): the caller looks again.
 */
function moveAside(path: string, ino: number | bigint, found: Found): boolean {
  const now = statOf(path)
  if (!now || now.ino !== ino) return false
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  let target = `${path}.moved-${stamp}`
  for (let n = 1; existsSync(target); n++) target = `${path}.moved-${stamp}-${n}`
  try {
    renameSync(path, target)
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw accessError(path, `it could not be moved aside (${(cause as Error).message})`, cause)
  }
  for (const suffix of ['-wal', '-shm', '-journal']) {
    if (existsSync(path + suffix)) {
      try {
        renameSync(path + suffix, target + suffix)
      } catch {
        // What stays behind is SQLite's scratch space of a database no longer there: harmless.
      }
    }
  }
  const what = found === 'empty' ? 'was empty' : "is not crashlab's index (another program's SQLite database)"
  process.emitWarning(
    `[crashlab] the run index ${path} ${what}: moved it to ${target} and rebuilt the index from the cassettes under runs/.`,
    { code: 'CRASHLAB_STORE' },
  )
  return true
}

/**
 * Builds the index from the cassettes in a temp file, then links it into place: another process sees
 * no index or a whole one. When another process was first, its index is kept and ours dropped.
 */
function createIndex(dir: string, path: string): void {
  const tmp = join(dir, `.index.db.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const index = new IndexDb(tmp)
    try {
      rebuildIndex(dir, index)
    } finally {
      index.close()
    }
    try {
      linkSync(tmp, path)
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code
      if (code === 'EEXIST') return
      // A file system without hard links: a rename, which could replace an index created meanwhile.
      if (!existsSync(path)) renameSync(tmp, path)
    }
  } finally {
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true })
  }
}

/** A read-only store whose index is missing or unusable: an index in memory, from the cassettes. */
function inMemory(dir: string, path: string, found: Found | undefined): OpenedIndex {
  const index = new IndexDb(':memory:')
  rebuildIndex(dir, index)
  if (found !== undefined) {
    const what = found === 'empty' ? 'is empty' : "is not crashlab's index"
    process.emitWarning(
      `[crashlab] the run index ${path} ${what}, and the store is read-only: listing the runs from their cassettes instead. Make the store writable to have the index rebuilt.`,
      { code: 'CRASHLAB_STORE' },
    )
  }
  return { index, readOnly: true }
}
