import { readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { CrashlabError } from '../errors.ts'
import { writeFileAtomic } from './atomic-write.ts'
import { attachBinary, binaryOf, bodyFilesOf, sha256Hex } from './binary-bodies.ts'
import { clipText } from './internal/clip-text.ts'
import type { Cassette } from './schema/cassette.ts'
import type { BodyFile } from './schema/step.ts'

const SHA = /^[0-9a-f]{64}$/

/**
 * The folder of a cassette's sidecar files: `<cassette dir>/<cassette name>.files`, the name without
 * its `.json` (`refund.cassette.json` → `refund.cassette.files`).
 *
 * @example
 * cassetteFilesDir('__cassettes__/a.test.ts/refund.cassette.json') // '__cassettes__/a.test.ts/refund.cassette.files'
 */
export function cassetteFilesDir(cassettePath: string): string {
  return join(dirname(cassettePath), `${basename(cassettePath).replace(/\.json$/i, '')}.files`)
}

function sizeOf(path: string): number | undefined {
  try {
    const s = statSync(path)
    return s.isFile() ? s.size : undefined
  } catch {
    return undefined
  }
}

/**
 * Writes the sidecar file of every binary body in `files`, each atomically and named by its sha256, before
 * the cassette that points at them. A sidecar already on disk with the right size is content-addressed
 * and left as is. Bytes come from `binaries`, then from what the process holds for the body (recorded or
 * loaded). A body with no bytes anywhere, or bytes that do not hash to its sha256, is
 * `E_CASSETTE_INVALID`, and the cassette is not written.
 *
 * @example
 * writeCassetteBinaries(path, bodyFilesOf(run), new Map([[sha, bytes]]))
 */
export function writeCassetteBinaries(
  cassettePath: string,
  files: readonly BodyFile[],
  binaries: ReadonlyMap<string, Uint8Array> = new Map(),
): void {
  const dir = cassetteFilesDir(cassettePath)
  const done = new Set<string>()
  for (const file of files) {
    if (done.has(file.sha256)) continue
    done.add(file.sha256)
    const target = join(dir, file.sha256)
    const bytes = binaries.get(file.sha256) ?? binaryOf(file)
    if (!bytes) {
      if (sizeOf(target) === file.bytes) continue
      throw binaryError(
        cassettePath,
        `the binary body ${file.sha256} (${clipText(file.mediaType, 60)}, ${file.bytes} bytes) has no bytes in this process and no sidecar file at ${target}`,
        'Pass its bytes with the `binaries` option, or re-record it.',
      )
    }
    if (bytes.byteLength !== file.bytes || sha256Hex(bytes) !== file.sha256) {
      throw binaryError(
        cassettePath,
        `the bytes given for the binary body ${file.sha256} do not match its sha256 and size`,
        'Pass the bytes the step recorded.',
      )
    }
    if (sizeOf(target) === file.bytes) continue
    writeFileAtomic(target, bytes)
  }
}

/**
 * Removes the sidecar files no body of the cassette points at any more (a re-record changed the audio),
 * and the folder when it is left empty. Only sha256-named files are touched.
 *
 * @example
 * pruneCassetteBinaries(path, new Set(bodyFilesOf(run).map((f) => f.sha256)))
 */
export function pruneCassetteBinaries(cassettePath: string, keep: ReadonlySet<string>): void {
  const dir = cassetteFilesDir(cassettePath)
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) if (SHA.test(name) && !keep.has(name)) rmSync(join(dir, name), { force: true })
  try {
    rmdirSync(dir) // fails, as it should, while anything is left in it
  } catch {
    // not empty
  }
}

/**
 * Reads the sidecar file of every binary body of `cassette` (loaded from `cassettePath`), checks its size
 * and sha256, and attaches the bytes to the body, so that a replay serves them. Returns them by sha256.
 * A missing sidecar is `E_CASSETTE_NOT_FOUND`; one whose bytes do not match is `E_CASSETTE_INVALID`.
 *
 * @example
 * const cassette = loadCassette(path, { binaries: false })
 * const bytes = loadCassetteBinaries(path, cassette).get(sha)
 */
export function loadCassetteBinaries(cassettePath: string, cassette: Cassette): Map<string, Uint8Array> {
  const dir = cassetteFilesDir(cassettePath)
  const out = new Map<string, Uint8Array>()
  for (const file of bodyFilesOf(cassette.run)) {
    let bytes = out.get(file.sha256)
    if (!bytes) {
      const target = join(dir, file.sha256)
      // The size first: a sidecar that is not the declared size is refused without being read whole.
      const size = sizeOf(target)
      if (size !== undefined && size !== file.bytes) {
        throw binaryError(
          cassettePath,
          `the sidecar file ${target} does not match its sha256 or size (${size} bytes, ${file.bytes} expected)`,
          'Restore it from version control, or re-record it with `npx crashlab vitest --record`.',
        )
      }
      try {
        bytes = new Uint8Array(readFileSync(target))
      } catch (cause) {
        throw new CrashlabError(
          'E_CASSETTE_NOT_FOUND',
          `cassette ${cassettePath} points at the binary body ${target} (${clipText(file.mediaType, 60)}), which could not be read (${(cause as Error).message}): restore the \`.files\` folder beside the cassette from version control, or re-record it with \`npx crashlab vitest --record\`.`,
          { cause, subject: cassettePath },
        )
      }
      if (bytes.byteLength !== file.bytes || sha256Hex(bytes) !== file.sha256) {
        throw binaryError(
          cassettePath,
          `the sidecar file ${target} does not match its sha256 or size (${bytes.byteLength} bytes, ${file.bytes} expected)`,
          'Restore it from version control, or re-record it with `npx crashlab vitest --record`.',
        )
      }
      out.set(file.sha256, bytes)
    }
    attachBinary(file, bytes)
  }
  return out
}

function binaryError(path: string, what: string, next: string): CrashlabError {
  return new CrashlabError('E_CASSETTE_INVALID', `cassette ${path}: ${what}. ${next}`, { subject: path })
}
