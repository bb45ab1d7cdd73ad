import { readFileSync, statSync } from 'node:fs'
import { CrashlabError } from '../errors.ts'
import { loadCassetteBinaries } from './cassette-binaries.ts'
import {
  cassetteTooLargeError,
  DEFAULT_MAX_CASSETTE_BYTES,
  type ParseCassetteOptions,
  parseCassette,
} from './cassette-parse.ts'
import type { Cassette } from './schema/cassette.ts'

/** Options of `loadCassette`: those of `parseCassette`, with the file path as the source. */
export type LoadCassetteOptions = Omit<ParseCassetteOptions, 'source'> & {
  /**
   * Read the sidecar files of binary bodies and attach their bytes to the steps, for replay (default
   * `true`). `false` reads the JSON only (inspecting, scanning); `loadCassetteBinaries` reads them later.
   */
  binaries?: boolean
}

/**
 * Reads and validates the cassette at `path`, with the checks of `parseCassette`. The size is checked
 * with `stat` before the file is read, so an oversized file (a run that inlined media, a wrong path
 * pointing at a log) costs nothing. A missing file is `E_CASSETTE_NOT_FOUND`, naming the command that
 * records it. The sidecar files of binary bodies are read and checked too (unless `binaries: false`).
 * Synchronous like `writeCassette`: a test reads one cassette before it starts, and the
 * sync call keeps the error's stack pointing at the test.
 *
 * @example
 * const { run } = loadCassette('__cassettes__/refund.test.ts/refund.cassette.json')
 * run.steps.filter((s) => s.type === 'llm').length
 */
export function loadCassette(path: string, options: LoadCassetteOptions = {}): Cassette {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_CASSETTE_BYTES
  const where = `cassette ${path}`
  let size: number
  try {
    const stat = statSync(path)
    if (!stat.isFile()) {
      throw new CrashlabError(
        'E_CASSETTE_NOT_FOUND',
        `${where} is ${stat.isDirectory() ? 'a folder' : 'not a regular file'}, not a cassette file: check the path.`,
        { subject: path },
      )
    }
    size = stat.size
  } catch (cause) {
    if (cause instanceof CrashlabError) throw cause
    throw notReadable(path, cause)
  }
  if (size > maxBytes) throw cassetteTooLargeError(where, size, maxBytes, path)

  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (cause) {
    throw notReadable(path, cause)
  }
  // The file may have grown between stat and read: parseCassette checks the size of what was read again.
  const { binaries = true, ...parseOptions } = options
  const cassette = parseCassette(bytes, { ...parseOptions, maxBytes, source: path })
  if (binaries) loadCassetteBinaries(path, cassette)
  return cassette
}

function notReadable(path: string, cause: unknown): CrashlabError {
  const code = (cause as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new CrashlabError(
      'E_CASSETTE_NOT_FOUND',
      `no cassette at ${path}: record it by running the test with \`npx crashlab vitest --record\`.`,
      { cause, subject: path },
    )
  }
  // There is no separate code for "exists but cannot be read" yet; to the caller it is as absent.
  return new CrashlabError(
    'E_CASSETTE_NOT_FOUND',
    `cassette ${path} could not be read (${(cause as Error).message}): check its permissions.`,
    { cause, subject: path },
  )
}
