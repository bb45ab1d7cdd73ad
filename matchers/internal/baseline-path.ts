import { createHash } from 'node:crypto'
import { basename, dirname, join } from 'node:path'

/**
 * Baselines live beside the test's cassettes, one file per test (and per name, when a test keeps
 * several): `<dir of test file>/__cassettes__/<test file name>/<test name>[.<name>].agentcase`. The test
 * name becomes a file name by the same rule as the plugin's cassette paths (plugin/cassette-path.ts), so
 * a test's cassette and its baseline share a stem and sort together. The rule is repeated here rather
 * than imported because matchers/ and plugin/ depend only on src/; the two must change together.
 * - the ` > ` Vitest puts between describe blocks and the test becomes ` › `;
 * - characters that file systems refuse or treat specially (`/ \ : * ? " < > |`, control characters),
 *   `%` itself, a `›` inside a name, a leading `.` and a trailing space or `.` are percent-encoded
 *   (`%2F`), so two different names never give the same file name;
 * - a name longer than 180 bytes is cut at 150 bytes and ends with `~` and 10 hex characters of the
 *   SHA-256 of the full name; an empty name is `%00empty`.
 */

const VITEST_SEPARATOR = ' > '
const FILE_SEPARATOR = ' › '
const MAX_NAME_BYTES = 180
const CUT_BYTES = 150

/**
 * A test's full name (or a baseline name) as a file-name segment.
 *
 * @example
 * sanitizeTestName('refund bot > clean refund: A17') // 'refund bot › clean refund%3A A17'
 */
export function sanitizeTestName(fullName: string): string {
  const encoded = fullName
    .split(VITEST_SEPARATOR)
    .map((part) => part.replace(/[%/\\:*?"<>|›\u0000-\u001f\u007f]/g, percent))
    .join(FILE_SEPARATOR)
    .replace(/^\./, '%2E')
    .replace(/[ .]$/, percent)
  const name = encoded.length === 0 ? '%00empty' : encoded
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name
  const hash = createHash('sha256').update(fullName).digest('hex').slice(0, 10)
  return `${cutToBytes(name, CUT_BYTES)}~${hash}`
}

/**
 * The default baseline path of a test: beside its cassette, with `.agentcase` instead of `.cassette.json`.
 *
 * @example
 * defaultBaselinePath('/repo/refund.test.ts', 'refund > happy path', 'final')
 * // '/repo/__cassettes__/refund.test.ts/refund › happy path.final.agentcase'
 */
export function defaultBaselinePath(testPath: string, testName: string, name?: string): string {
  const suffix = name === undefined ? '' : `.${sanitizeTestName(name)}`
  return join(
    dirname(testPath),
    '__cassettes__',
    basename(testPath),
    `${sanitizeTestName(testName)}${suffix}.agentcase`,
  )
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
