import { isUtf8 } from 'node:buffer'
import { CrashlabError, formatIssues } from '../errors.ts'
import { VERSION } from '../version.ts'
import { cassetteIssues } from './cassette-issues.ts'
import { locateJsonError } from './cassette-json-error.ts'
import { holdsSeal } from './cassette-seal.ts'
import { TOO_MANY_ISSUES } from './internal/bounded-safe-parse.ts'
import { clipText, quoteValue } from './internal/clip-text.ts'
import { describeBoundsProblem, findBoundsProblem } from './internal/json-bounds.ts'
import { piecewiseSafeParse } from './internal/piecewise-parse.ts'
import { CASSETTE_MIGRATIONS, type CassetteMigration, migrateCassette } from './migrations.ts'
import { CASSETTE_FORMAT, CASSETTE_VERSION, type Cassette, CassetteSchema } from './schema/cassette.ts'
import { stepNumberingIssues } from './schema/run.ts'
import { StepSchema } from './schema/step.ts'

/**
 * The largest cassette read unless `maxBytes` says otherwise: 16 MiB, about three times the largest
 * realistic run we measured (1,000 steps is ~5 MB), and small enough that a wrong path pointing at a
 * log or a dump fails at once instead of filling memory.
 *
 * @example
 * loadCassette(path, { maxBytes: 4 * DEFAULT_MAX_CASSETTE_BYTES })
 */
export const DEFAULT_MAX_CASSETTE_BYTES = 16 * 1024 * 1024

export interface ParseCassetteOptions {
  /** Refuse inputs larger than this many bytes (UTF-8). Default `DEFAULT_MAX_CASSETTE_BYTES` (16 MiB). */
  maxBytes?: number
  /** The file the input came from, named in error messages. */
  source?: string
  /**
   * @internal Extra migration steps, added to `CASSETTE_MIGRATIONS`. Tests use it to prove the chain
   * works while the real registry is still empty; it is not a public extension point.
   */
  migrations?: readonly CassetteMigration[]
}

/**
 * A run with at least this many steps is validated one step at a time, and validation stops after
 * `MAX_REPORTED_ISSUES` problems: an invalid file of 100,000 tiny steps costs milliseconds, not seconds.
 */
const STEP_BY_STEP = 1000
const MAX_REPORTED_ISSUES = 1000

const RECORD_HINT = 're-record it by running its test with `npx crashlab vitest --record`'

/**
 * Reads a cassette from its bytes or text, strictly: every problem is a `CrashlabError` with an
 * `E_CASSETTE_*` code, checked in this order: size (`E_CASSETTE_TOO_LARGE`), UTF-8 and JSON syntax
 * (`E_CASSETTE_MALFORMED`, with line and column), the shape bounds (`E_CASSETTE_MALFORMED` when nested
 * deeper than 1,000 levels, `E_CASSETTE_TOO_LARGE` over 100,000 entries in one object or array or
 * 1,000,000 in all), the envelope (`E_CASSETTE_MALFORMED` when it is not a crashlab cassette), the format version (`E_CASSETTE_VERSION` when it is newer than this crashlab or no
 * migration reaches it; older versions are migrated), then the schema (`E_CASSETTE_INVALID`, with every
 * failing path). A UTF-8 byte order mark is skipped: editors on Windows add one.
 *
 * @example
 * const cassette = parseCassette(readFileSync(path), { source: path })
 * cassette.run.steps.length
 */
export function parseCassette(input: string | Uint8Array, options: ParseCassetteOptions = {}): Cassette {
  const where = options.source ? `cassette ${options.source}` : 'the cassette'
  const subject = options.source
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_CASSETTE_BYTES

  const size = sizeIfOver(input, maxBytes)
  if (size !== undefined) throw cassetteTooLargeError(where, size, maxBytes, subject)

  let text: string
  if (typeof input === 'string') {
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  } else {
    const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength)
    // isUtf8 is a SIMD scan (~0.1 ms/MB); decoding with a fatal TextDecoder would cost as much as JSON.parse.
    if (!isUtf8(bytes)) {
      throw new CrashlabError(
        'E_CASSETTE_MALFORMED',
        `${where} is not valid UTF-8 text, so it is not a cassette (was it saved in another encoding, or is it a binary file?); ${RECORD_HINT}.`,
        { subject },
      )
    }
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
    text = bytes.toString('utf8', bom)
  }

  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (cause) {
    const at = locateJsonError(text, cause as Error)
    throw new CrashlabError(
      'E_CASSETTE_MALFORMED',
      `${where} is not valid JSON: ${at.reason} at line ${at.line}, column ${at.column} (character ${at.position}). ` +
        `It may have been cut short or edited by hand: restore it from version control, or ${RECORD_HINT}.`,
      { cause, subject },
    )
  }

  // Before anything walks the document: the schema and the walkers after it are recursive.
  const problem = findBoundsProblem(doc)
  if (problem) {
    throw new CrashlabError(
      problem.kind === 'depth' ? 'E_CASSETTE_MALFORMED' : 'E_CASSETTE_TOO_LARGE',
      `${where} ${describeBoundsProblem(problem)}; no cassette crashlab writes looks like that. ` +
        `Check what wrote it, or ${RECORD_HINT}.`,
      { subject },
    )
  }

  // JSON.parse keeps `-0` (and numbers that underflow to it, `-1e-400`); the canonical form writes 0, so a
  // loaded cassette holds 0 too, and loads the same after a write. Only text with a negative number pays.
  if (/[:[,]\s*-\d/.test(text)) replaceNegativeZero(doc)

  const envelope = checkEnvelope(doc, where, subject)
  const version = envelope.version as number
  if (version > CASSETTE_VERSION) {
    const creator = envelope.creator as { version?: unknown } | undefined
    const by = typeof creator?.version === 'string' ? ` ${clipText(creator.version, 40)}` : ''
    throw new CrashlabError(
      'E_CASSETTE_VERSION',
      `${where} was written by a newer crashlab${by} (format version ${version}; this crashlab reads up to ${CASSETTE_VERSION}): upgrade crashlab (npm install -D crashlab@latest).`,
      { subject },
    )
  }
  const current =
    version < CASSETTE_VERSION
      ? migrateCassette(envelope, { source: options.source, migrations: migrations(options.migrations) })
      : envelope

  // Byte for byte what this crashlab validated and sealed: the schema would find nothing (and loading
  // zod for it is most of what a replay costs a test file).
  if (current === envelope && isSealedByThisVersion(envelope, text)) return envelope as Cassette

  const result = piecewiseSafeParse(
    CassetteSchema,
    current,
    { path: ['run', 'steps'], element: StepSchema, minLength: STEP_BY_STEP },
    { maxIssues: MAX_REPORTED_ISSUES, extraIssues: stepNumberingIssues },
  )
  if (result === TOO_MANY_ISSUES) {
    throw new CrashlabError(
      'E_CASSETTE_INVALID',
      `${where} does not match the cassette format, with too many problems to list (the validator gave up): ` +
        `it is most likely not a cassette written by crashlab. ${capitalize(RECORD_HINT)}.`,
      { subject },
    )
  }
  if (!result.success) {
    const issues = cassetteIssues(result.issues)
    const count = `${issues.length}${result.truncated ? '+' : ''} problem${issues.length === 1 ? '' : 's'}${result.truncated ? ', checking stopped there' : ''}`
    throw new CrashlabError(
      'E_CASSETTE_INVALID',
      `${where} does not match the cassette format (${count}):\n` +
        `${formatIssues(issues)}\n` +
        `Fix the named fields, or ${RECORD_HINT}.`,
      { issues, subject },
    )
  }
  return result.data
}

function isSealedByThisVersion(envelope: Record<string, unknown>, text: string): boolean {
  const creator = envelope.creator as { version?: unknown } | undefined
  return typeof envelope.seal === 'string' && creator?.version === VERSION && holdsSeal(text)
}

/** Replaces every `-0` in a freshly parsed document by `0`, in place; iterative, as the nesting may be deep. */
function replaceNegativeZero(doc: unknown): void {
  const stack: unknown[] = [doc]
  while (stack.length) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null) continue
    const obj = node as Record<string, unknown>
    for (const key of Object.keys(obj)) {
      const v = obj[key]
      if (typeof v === 'object' && v !== null) stack.push(v)
      else if (Object.is(v, -0)) obj[key] = 0
    }
  }
}

function migrations(extra: readonly CassetteMigration[] | undefined): readonly CassetteMigration[] {
  // A test's steps join the real registry rather than replace it.
  return extra?.length ? [...CASSETTE_MIGRATIONS, ...extra] : CASSETTE_MIGRATIONS
}

/** Checks what must hold before anything else is read: an object that says it is a crashlab cassette, with an integer version. */
function checkEnvelope(doc: unknown, where: string, subject: string | undefined): Record<string, unknown> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    const what = doc === null ? 'null' : Array.isArray(doc) ? 'an array' : `a ${typeof doc}`
    throw new CrashlabError(
      'E_CASSETTE_MALFORMED',
      `${where} is not a crashlab cassette: its top level is ${what}, not an object with "format": "${CASSETTE_FORMAT}". ${capitalize(RECORD_HINT)}.`,
      { subject },
    )
  }
  const obj = doc as Record<string, unknown>
  if (obj.format !== CASSETTE_FORMAT) {
    if (obj.format_name === 'agentcase') {
      throw new CrashlabError(
        'E_CASSETTE_MALFORMED',
        `${where} is an AgentCase file, not a crashlab cassette: read it with the AgentCase reader (\`loadAgentCase\`), or look at it with \`npx crashlab inspect <file>\`.`,
        { subject },
      )
    }
    const said =
      obj.format === undefined ? 'it has no "format" field' : `its "format" is ${quoteValue(obj.format, 40)}`
    throw new CrashlabError(
      'E_CASSETTE_MALFORMED',
      `${where} is not a crashlab cassette: ${said}, and a cassette says "format": "${CASSETTE_FORMAT}". ${capitalize(RECORD_HINT)}.`,
      { subject },
    )
  }
  if (!Number.isSafeInteger(obj.version)) {
    const said =
      obj.version === undefined ? 'has no "version"' : `has "version": ${quoteValue(obj.version, 40)}`
    throw new CrashlabError(
      'E_CASSETTE_MALFORMED',
      `${where} ${said}; a cassette's format version is an integer (this crashlab writes ${CASSETTE_VERSION}). ${capitalize(RECORD_HINT)}.`,
      { subject },
    )
  }
  return obj
}

/**
 * The `E_CASSETTE_TOO_LARGE` error, shared with `loadCassette`, which raises it from `stat` before
 * reading the file. Internal: not exported from the package.
 *
 * @example
 * if (size > maxBytes) throw cassetteTooLargeError(`cassette ${path}`, size, maxBytes, path)
 */
export function cassetteTooLargeError(
  where: string,
  size: number,
  maxBytes: number,
  subject: string | undefined,
): CrashlabError {
  return new CrashlabError(
    'E_CASSETTE_TOO_LARGE',
    `${where} is ${formatBytes(size)} (${size} bytes), over the ${formatBytes(maxBytes)} limit (${maxBytes} bytes). ` +
      'If the run really is that big, raise the limit with the `maxBytes` option (e.g. `{ maxBytes: 64 * 1024 * 1024 }`); ' +
      'otherwise look for what bloats it (inline media, huge tool results).',
    { subject },
  )
}

/** The UTF-8 size when it is over the limit, else undefined; a string surely small enough is not measured. */
function sizeIfOver(input: string | Uint8Array, maxBytes: number): number | undefined {
  if (typeof input !== 'string') return input.byteLength > maxBytes ? input.byteLength : undefined
  // Each UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair, 2 units, takes 4).
  if (input.length * 3 <= maxBytes) return undefined
  const size = Buffer.byteLength(input, 'utf8')
  return size > maxBytes ? size : undefined
}

/** Sizes as people read them: `16 MiB`, `20.5 MiB`, `812 KiB`. */
function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Number((n / (1024 * 1024)).toFixed(1))} MiB`
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KiB`
  return `${n} B`
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
