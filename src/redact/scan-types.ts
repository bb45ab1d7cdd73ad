import type { Redactor } from './types.ts'

/**
 * One suspected leak. The excerpt is masked: it never carries the secret.
 *
 * @example
 * const f: ScanFinding = { file: 'a.cassette.json', pointer: '/run/steps/0/note', rule: 'openai-key', excerpt: 'sk-p…(51)' }
 */
export interface ScanFinding {
  file: string
  /** JSON Pointer of the value when the file is JSON; `null` for text. */
  pointer: string | null
  /** When the value is a string holding JSON (an SSE chunk's `data`), the pointer inside that JSON. */
  embeddedPointer?: string
  /** 1-based line, for text and JSON Lines files. */
  line?: number
  /** The rule that fired: a pattern id, `sensitive-key`, or `high-entropy`. */
  rule: string
  /** The first four characters, an ellipsis and the length: `sk-p…(51)`. */
  excerpt: string
}

/**
 * What `scanPaths` returns.
 *
 * @example
 * const { files, findings } = await scanPaths(['__cassettes__'])
 */
export interface ScanReport {
  /** How many files were read. */
  files: number
  findings: ScanFinding[]
}

/**
 * Where random-looking values are expected by design, so the entropy heuristic skips them.
 *
 * @example
 * const allow: ScanAllowList = { keys: ['trace_token'], pointers: ['/run/meta/**'] }
 */
export interface ScanAllowList {
  /** Key names (compared case-folded, letters and digits only), e.g. `requestHash`, `x-request-id`. */
  keys?: string[]
  /** Pointer globs: `*` is one token, `**` any number, e.g. `/run/id`, `**\/links/**`. */
  pointers?: string[]
}

/**
 * Options of the scanners.
 *
 * @example
 * scanDocument(doc, { allow: { keys: ['nonce'] }, entropy: { minLength: 24 } })
 */
export interface ScanOptions {
  /** The rules that define a secret; default: the same redactor `redactDocument` uses. */
  redactor?: Redactor
  /** Locations added to the built-in allow-list (never replacing it). */
  allow?: ScanAllowList
  /** Turn the entropy heuristic off (`false`) or tune it. */
  entropy?: boolean | { minLength?: number }
  /** The file name put in findings (scanText / scanDocument); scanPaths sets it. */
  file?: string
}
