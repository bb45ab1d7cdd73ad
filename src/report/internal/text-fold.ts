/**
 * Shortening long text for reports: a one-line summary cut to a width, and a body cut to a number of
 * lines. Both count code points, so a cut never splits a surrogate pair.
 */

/** Cuts `text` to at most `width` characters, ending with `…` when it was cut. */
export function clip(text: string, width: number): string {
  const chars = Array.from(text)
  if (chars.length <= width) return text
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`
}

/** The first `max` lines of `text` (each at most `width` characters), and how many lines were left out. */
export function foldLines(text: string, max: number, width = 200): { lines: string[]; hidden: number } {
  const all = text.split('\n')
  const shown = all.slice(0, max).map((line) => clip(line, width))
  return { lines: shown, hidden: all.length - shown.length }
}

/** Whether a body is long enough to be folded away by default in the HTML report. */
export function isLong(text: string, maxLines = 16, maxChars = 1200): boolean {
  if (text.length > maxChars) return true
  let lines = 1
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1))
    if (++lines > maxLines) return true
  return false
}

/** A size for a folded body's summary: `42 lines, 3.1 KB`. */
export function sizeOf(text: string): string {
  const lines = text.split('\n').length
  const bytes = Buffer.byteLength(text)
  const size = bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`
  return `${lines} line${lines === 1 ? '' : 's'}, ${size}`
}

// C0 and C1 control characters other than tab and newline: an escape sequence in a prompt or a tool
// result must not recolor, move the cursor in, or clear the reader's terminal.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** A copy of a JSON value whose strings show control characters as `\u001b`-style escapes. */
export function escapeControls<T>(value: T): T {
  if (typeof value === 'string') {
    return value.replace(CONTROLS, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) as T
  }
  if (Array.isArray(value)) return value.map(escapeControls) as T
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = escapeControls(v)
    return out as T
  }
  return value
}
