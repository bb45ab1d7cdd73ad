import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { CrashlabError } from '../errors.ts'

/**
 * Writes `data` to `path` so that a reader (or a crash) only ever sees the complete old file or the
 * complete new one: a temp file in the same folder, fsync, rename over the target, fsync the folder.
 * On failure the temp file is removed and the target is untouched.
 *
 * @example
 * writeFileAtomic('__cassettes__/refund.cassette.json', text)
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirname(path)
  // Dot-prefixed so globs over the folder skip it; random so concurrent writers never share one.
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  let fd: number | undefined
  try {
    mkdirSync(dir, { recursive: true })
    fd = openSync(tmp, 'wx', 0o644)
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    let offset = 0
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    renameSync(tmp, path)
  } catch (cause) {
    if (fd !== undefined) {
      try {
        closeSync(fd)
      } catch {
        // already failing; the original error matters
      }
    }
    try {
      rmSync(tmp, { force: true })
    } catch {
      // the folder itself may be unusable (a file in its place); there is no temp file to remove then
    }
    throw new CrashlabError(
      'E_WRITE_FAILED',
      `could not write ${path}: ${(cause as Error).message}. Nothing was changed; check that the folder is writable and the disk has room.`,
      { cause, subject: path },
    )
  }
  syncDir(dir)
}

function syncDir(dir: string): void {
  // Makes the rename itself durable. Some file systems refuse fsync on a directory; the data is safe regardless.
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // best effort
  }
}
