import { createHash } from 'node:crypto'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'

/**
 * Where a test's files live, by one rule for the plugin's cassettes and the matchers' baselines: every
 * file of a test file sits in `<cassetteDir>/<test file name>/`, and a test's cassette and its
 * `.agentcase` baselines share a stem (the sanitized full test name) and sort together. The sidecar
 * folder of a cassette's binary bodies sits beside it (`cassetteFilesDir`, src/case/cassette-binaries.ts).
 */

/** The folder of cassettes and baselines when the plugin's `cassetteDir` is not set. */
export const DEFAULT_CASSETTE_DIR = '__cassettes__'
/** The ending of a cassette file. */
export const CASSETTE_SUFFIX = '.cassette.json'
/** The ending of a baseline file (`toMatchAgentCase`). */
export const BASELINE_SUFFIX = '.agentcase'

/** Vitest joins the names of a test and its describe blocks with this. */
const VITEST_SEPARATOR = ' > '
/** What the separator becomes in a file name: readable, and not a path separator. */
const FILE_SEPARATOR = ' › '
/** Longest file name kept whole (bytes, before `.cassette.json`); file systems allow 255. */
const MAX_NAME_BYTES = 180

/**
 * The file name (without `.cassette.json`) for a test's full name. Readable and collision-free:
 * - the ` > ` between describe blocks and the test becomes ` › `;
 * - characters that file systems refuse or treat specially (`/ \ : * ? " < > |`, control characters),
 *   `%` itself, `~`, a `›` inside a name, and a leading `.` or trailing space or `.` are percent-encoded
 *   (`%2F`), so two different names never give the same file name (the encoding can be undone);
 * - an empty name is `%empty` (encoding never makes `%` followed by a lowercase letter);
 * - a name longer than 180 bytes is cut at 150 and ends with `~` and 10 hex characters of its SHA-256.
 * Names that differ only in letter case share a file on case-insensitive file systems (macOS, Windows).
 *
 * @example
 * sanitizeTestName('refund bot > clean refund: A17') // 'refund bot › clean refund%3A A17'
 */
export function sanitizeTestName(fullName: string): string {
  const encoded = fullName
    .split(VITEST_SEPARATOR)
    .map((part) => part.replace(/[%/\\:*?"<>|›~\u0000-\u001f\u007f]/g, percent))
    .join(FILE_SEPARATOR)
    .replace(/^\./, '%2E')
    .replace(/[ .]$/, percent)
  const name = encoded.length === 0 ? '%empty' : encoded
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name
  const hash = createHash('sha256').update(fullName).digest('hex').slice(0, 10)
  return `${cutToBytes(name, 150)}~${hash}`
}

/**
 * Where a test's cassette lives: `<cassetteDir>/<test file name>/<sanitized full test name>.cassette.json`,
 * with `cassetteDir` resolved against the test file's folder (default `__cassettes__`, beside the file).
 * An absolute `cassetteDir` is used as it is.
 *
 * @example
 * cassettePathFor('/repo/test/refund.test.ts', 'refund > clean') // '/repo/test/__cassettes__/refund.test.ts/refund › clean.cassette.json'
 */
export function cassettePathFor(
  testFile: string,
  fullName: string,
  cassetteDir: string = DEFAULT_CASSETTE_DIR,
): string {
  return join(cassetteFolderFor(testFile, cassetteDir), `${sanitizeTestName(fullName)}${CASSETTE_SUFFIX}`)
}

/**
 * Where a test's `toMatchAgentCase` baseline lives: beside its cassette, in the same folder (so the
 * plugin's `cassetteDir` moves both), `<sanitized full test name>[.<sanitized name>].agentcase`.
 *
 * @example
 * baselinePathFor('/repo/test/refund.test.ts', 'refund > clean', 'final')
 * // '/repo/test/__cassettes__/refund.test.ts/refund › clean.final.agentcase'
 */
export function baselinePathFor(
  testFile: string,
  fullName: string,
  name?: string,
  cassetteDir: string = DEFAULT_CASSETTE_DIR,
): string {
  const suffix = name === undefined ? '' : `.${sanitizeTestName(name)}`
  return join(
    cassetteFolderFor(testFile, cassetteDir),
    `${sanitizeTestName(fullName)}${suffix}${BASELINE_SUFFIX}`,
  )
}

/**
 * Whether the file `fileName` (a name in a test file's folder, no directory) may belong to the test
 * `fullName`: its cassette, or one of its baselines (unnamed or named). A dot inside a test name makes
 * some names ambiguous (`a.b.agentcase` is test `a.b`'s baseline or test `a`'s baseline `b`): such a
 * file is counted as owned by both, so a test that exists never loses a file.
 *
 * @example
 * mayBelongToTest('refund › clean.final.agentcase', 'refund > clean') // true
 * mayBelongToTest('refund › old.agentcase', 'refund > clean') // false
 */
export function mayBelongToTest(fileName: string, fullName: string): boolean {
  const stem = sanitizeTestName(fullName)
  if (fileName === `${stem}${CASSETTE_SUFFIX}` || fileName === `${stem}${BASELINE_SUFFIX}`) return true
  return fileName.startsWith(`${stem}.`) && fileName.endsWith(BASELINE_SUFFIX)
}

/**
 * The folder that holds every cassette of one test file.
 *
 * @example
 * cassetteFolderFor('/repo/test/refund.test.ts') // '/repo/test/__cassettes__/refund.test.ts'
 */
export function cassetteFolderFor(testFile: string, cassetteDir: string = DEFAULT_CASSETTE_DIR): string {
  const base = isAbsolute(cassetteDir) ? cassetteDir : resolve(dirname(testFile), cassetteDir)
  return join(base, basename(testFile))
}

function percent(char: string): string {
  return [...Buffer.from(char)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')
}

function cutToBytes(text: string, bytes: number): string {
  let out = ''
  for (const char of text) {
    if (Buffer.byteLength(out + char) > bytes) break
    out += char
  }
  return out
}
