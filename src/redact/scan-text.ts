import { type ScanContext, scanContext } from './internal/scan-context.ts'
import { scanString } from './internal/scan-string.ts'
import type { ScanFinding, ScanOptions } from './scan-types.ts'

/** 1-based line of each offset, by binary search over the line starts. */
function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (starts[mid]! <= offset) lo = mid
    else hi = mid - 1
  }
  return lo + 1
}

/** @internal Scans text with a resolved context; `firstLine` offsets line numbers (JSON Lines). */
export function scanTextWith(text: string, ctx: ScanContext, firstLine = 1): ScanFinding[] {
  const found = scanString(text, ctx, { allowed: false, text: true })
  if (found.length === 0) return []
  const starts = [0]
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1)
  return found.map((f) => ({
    file: ctx.file,
    pointer: null,
    line: lineOf(starts, f.start) + firstLine - 1,
    rule: f.rule,
    excerpt: f.excerpt,
  }))
}

/**
 * Scans free text (a log, an HTML report, a snapshot file) for secrets: the redactor's value patterns,
 * sensitive keys inside JSON-looking text, and random-looking tokens. Text has no structure, so the
 * allow-list applies to the key written just before a token (`"requestHash":"…`).
 *
 * @example
 * scanText('curl -H "Authorization: Bearer ' + 'abcd1234efgh5678"')
 * // [{ file: '<input>', pointer: null, line: 1, rule: 'bearer-token', excerpt: 'abcd…(16)' }]
 */
export function scanText(text: string, options: ScanOptions = {}): ScanFinding[] {
  return scanTextWith(text, scanContext(options))
}
