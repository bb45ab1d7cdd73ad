import type { z } from 'zod'
import { CrashlabError, formatIssues, type ValidationIssue } from '../errors.ts'
import { type Redactor, redactDocument } from '../redact/index.ts'
import { VERSION } from '../version.ts'
import { writeFileAtomic } from './atomic-write.ts'
import { attachBinary, bodyFilesOf, collectBinaries } from './binary-bodies.ts'
import { pruneCassetteBinaries, writeCassetteBinaries } from './cassette-binaries.ts'
import { cassetteIssues } from './cassette-issues.ts'
import { DEFAULT_MAX_CASSETTE_BYTES } from './cassette-parse.ts'
import { toPlainJson } from './cassette-plain-json.ts'
import { sealText } from './cassette-seal.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { CASSETTE_FORMAT, CASSETTE_VERSION, type Cassette, CassetteSchema } from './schema/cassette.ts'
import type { RedactionInfo, Run, RunRedactionRecord } from './schema/run.ts'
import type { BodyFile } from './schema/step.ts'

export interface WriteCassetteOptions {
  /** The redaction rules; the default redactor (built-in rules plus those added process-wide) when omitted. */
  redactor?: Redactor
  /**
   * Receives warnings: a redaction rule that failed (by rule and path, never the value; the cassette
   * records it as `redaction.status: "partial"`), and a cassette too large for `loadCassette`'s default
   * limit. Default: `process.emitWarning`.
   */
  onWarning?: (message: string) => void
  /**
   * The bytes of the run's binary bodies (`bodyFile`), by sha256, written as sidecar files beside the
   * cassette. Bytes the process already holds for a body (recorded by a Session, or loaded with the
   * cassette) are found without it.
   */
  binaries?: ReadonlyMap<string, Uint8Array>
}

/**
 * Writes `run` as a cassette at `path`: wraps it in the envelope (format, version, creator), redacts
 * it, validates it, and writes the canonical text atomically (a reader or a crash sees the old file or
 * the new one, never half of one). The folder is created when missing.
 *
 * Redaction runs on the whole document before validation, and what it replaced is added to
 * `run.redaction` (as JSON Pointers into the written file). When a redaction rule failed, the value it
 * was looking at is dropped, the status is `partial`, and a `complete` run becomes `partial`.
 *
 * Binary bodies (`bodyFile` on a wire request or response) are written beside it as sidecar files,
 * `<cassette name>.files/<sha256>`, each atomically and before the cassette; sidecars no body points at
 * any more are removed after it. Their bytes come from `options.binaries` or from what the process holds
 * for the run (see `collectBinaries`).
 *
 * Nothing is written when the run is invalid (`E_CASSETTE_INVALID`, with every failing path) or is
 * not plain JSON (a `Date`, `NaN`, a class instance, a cycle); a failed write is `E_WRITE_FAILED` and
 * leaves the target untouched. The caller's run is never mutated.
 *
 * @returns the cassette as written: redacted, and equal to what `loadCassette(path)` returns.
 * @example
 * const cassette = writeCassette('__cassettes__/refund.test.ts/refund.cassette.json', run)
 * cassette.run.redaction.status // 'none' | 'redacted' | 'partial'
 */
export function writeCassette(path: string, run: Run, options: WriteCassetteOptions = {}): Cassette {
  const { cassette, text, files, held } = prepareCassette(path, run, options)
  // Sidecars first: a reader that sees the new cassette finds every file it points at.
  writeCassetteBinaries(path, files, held)
  writeFileAtomic(path, text)
  pruneCassetteBinaries(path, new Set(files.map((f) => f.sha256)))
  for (const file of files) {
    const bytes = held.get(file.sha256)
    if (bytes) attachBinary(file, bytes)
  }
  return cassette
}

/** What `prepareCassette` returns: everything `writeCassette` writes, nothing written yet. */
export interface PreparedCassette {
  /** The cassette as it will be written: redacted and validated. */
  cassette: Cassette
  /** Its canonical text. */
  text: string
  /** Its binary bodies. */
  files: BodyFile[]
  /** The bytes this process holds for them, by sha256. */
  held: Map<string, Uint8Array>
}

/**
 * Every step of `writeCassette` but the writes: envelope, redaction, validation, canonical text. It
 * throws exactly what `writeCassette` would throw before touching the disk, so a caller can check a
 * run without writing it (`crashlab validate` checks a file the way `crashlab import` stores it).
 *
 * @example
 * const { cassette } = prepareCassette('runs/01JH….cassette.json', run, { onWarning: () => {} })
 */
export function prepareCassette(
  path: string,
  run: Run,
  options: WriteCassetteOptions = {},
): PreparedCassette {
  const envelope = {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    creator: { name: 'crashlab', version: VERSION },
    run,
  }
  const plain = toPlainJson(envelope)
  if (plain.issues.length) throw invalid(path, plain.issues)

  const redacted = redactDocument(plain.value as typeof envelope, { redactor: options.redactor })
  const warn =
    options.onWarning ?? ((message: string) => process.emitWarning(message, { code: 'CRASHLAB_CASSETTE' }))
  for (const warning of redacted.warnings) {
    warn(`[crashlab] while redacting ${path}: ${warning.replace(/^\[crashlab\] /, '')}`)
  }
  const doc = {
    ...redacted.value,
    run: withRedaction(redacted.value.run, redacted.records, redacted.partial),
  }

  const result = CassetteSchema.safeParse(doc)
  if (!result.success) {
    throw invalid(
      path,
      cassetteIssues(result.error.issues),
      redactedFields(result.error.issues, redacted.records),
    )
  }

  // Serialize what zod returned: it is exactly what was validated, and so exactly what a load returns.
  // Sealed, so that a load of these very bytes by this crashlab can skip the schema (cassette-seal.ts).
  const { seal: _stale, ...validated } = result.data
  const { text, seal } = sealText(serializeCassette(validated))
  const cassette: Cassette = { ...validated, seal }
  const size = Buffer.byteLength(text)
  if (size > DEFAULT_MAX_CASSETTE_BYTES) {
    // Written anyway (the run is what it is), but a replay would fail on it without a raised limit.
    warn(
      `[crashlab] cassette ${path} is ${(size / 2 ** 20).toFixed(1)} MiB, over the ${DEFAULT_MAX_CASSETTE_BYTES / 2 ** 20} MiB ` +
        'that loading accepts by default: load it with a larger `maxBytes`, or keep large media and tool results out of the run.',
    )
  }
  const files = bodyFilesOf(cassette.run)
  const held = collectBinaries(run)
  for (const [sha, bytes] of options.binaries ?? []) held.set(sha, bytes)
  return { cassette, text, files, held }
}

/**
 * Adds the records of this redaction pass to those the run already carried (from capture, say). A pass
 * that replaced nothing leaves `run.redaction` exactly as it was, so a clean run round-trips unchanged.
 */
function withRedaction(run: Run, records: readonly RunRedactionRecord[], partial: boolean): Run {
  if (records.length === 0 && !partial) return run
  const before = (run as Partial<Run> | null)?.redaction
  // A run without a well-formed `redaction` is left as is: validation, next, names what is wrong with it.
  if (typeof before !== 'object' || before === null || !Array.isArray(before.records)) return run
  const seen = new Set<string>()
  const merged: RunRedactionRecord[] = []
  for (const r of [...before.records, ...records]) {
    const key = `${r.path}\u0000${r.rule}`
    if (seen.has(key)) continue
    seen.add(key)
    merged.push({ path: r.path, rule: r.rule })
  }
  const status: RedactionInfo['status'] = partial || before.status === 'partial' ? 'partial' : 'redacted'
  // A dropped value means the cassette no longer holds the whole run.
  const completeness = partial && run.completeness === 'complete' ? 'partial' : run.completeness
  return { ...run, completeness, redaction: { status, records: merged } }
}

/**
 * The redaction rules that replaced a value validation then refused (a user pattern that matches run
 * ids, say): without them the message would send people to fix a run that was fine before redaction.
 */
function redactedFields(
  issues: readonly z.core.$ZodIssue[],
  records: readonly RunRedactionRecord[],
): string[] {
  const rules = new Set<string>()
  for (const issue of issues) {
    const pointer = issue.path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')
    for (const r of records) if (r.path === pointer) rules.add(r.rule)
  }
  return [...rules]
}

function invalid(path: string, issues: ValidationIssue[], rules: string[] = []): CrashlabError {
  const next = rules.length
    ? `Redaction replaced values the format needs (rule ${rules.map((r) => `"${r}"`).join(', ')}): make the rule more specific.`
    : 'Fix the named fields where the run is built (values must be plain JSON).'
  return new CrashlabError(
    'E_CASSETTE_INVALID',
    `refusing to write cassette ${path}: the run does not match the cassette format ` +
      `(${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${formatIssues(issues)}\n` +
      `Nothing was written. ${next}`,
    { issues, subject: path },
  )
}
