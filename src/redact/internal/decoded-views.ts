/**
 * Decoded views of a string: the same text with its JSON escapes or its percent-encoding undone, and a
 * map from every decoded character back to where it came from. The redactor runs its rules over each
 * view as well as over the raw text, so that a secret written as `\nsk-…` inside JSON held as text, as
 * `\"password\":\"…\"`, or as `postgres%3A%2F%2Fuser%3Apass%40host` in a query value is found, and the
 * range it covers in the raw text is replaced. Working on views (instead of decoding, redacting and
 * re-encoding) leaves every byte outside a secret as it was, so a redacted body still parses and a
 * request hash over it is stable.
 */

/** One decoded view: its text, and `starts[i]`, the raw offset where decoded character `i` begins. */
export interface DecodedView {
  text: string
  /** `starts.length === text.length + 1`; the last entry is the raw end of the text. */
  starts: Int32Array
}

/** Views are built at most this deep (JSON escaped twice: a tool result holding a JSON string of JSON). */
const MAX_DEPTH = 3
/** A bound on the views of one string: each costs one more pass of the rules. */
const MAX_VIEWS = 8

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 65 && c <= 70) return c - 55
  if (c >= 97 && c <= 102) return c - 87
  return -1
}

/**
 * Undoes one level of JSON (and JavaScript) string escapes; a backslash that starts no escape is kept.
 * Returns undefined when there is nothing to undo.
 */
function unescapeJson(text: string): { text: string; starts: number[] } | undefined {
  if (!text.includes('\\')) return undefined
  let out = ''
  const starts: number[] = []
  let changed = false
  for (let i = 0; i < text.length; ) {
    const c = text[i]!
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!
      const simple = SIMPLE_ESCAPES[next]
      if (simple !== undefined) {
        starts.push(i)
        out += simple
        i += 2
        changed = true
        continue
      }
      if (next === 'u' && i + 5 < text.length) {
        let code = 0
        let ok = true
        for (let k = 2; k < 6; k++) {
          const h = hexValue(text.charCodeAt(i + k))
          if (h < 0) {
            ok = false
            break
          }
          code = code * 16 + h
        }
        if (ok) {
          starts.push(i)
          out += String.fromCharCode(code)
          i += 6
          changed = true
          continue
        }
      }
    }
    starts.push(i)
    out += c
    i++
  }
  return changed ? { text: out, starts } : undefined
}

/**
 * Undoes percent-encoding of ASCII bytes (`%3A` → `:`). Multi-byte sequences are left encoded: the
 * credential formats are ASCII, and a half-decoded UTF-8 character would only add noise. `+` stays a
 * `+` here (read as a space it would cut a base64 secret in two); `formDecode` reads it as a space.
 */
function percentDecode(text: string): { text: string; starts: number[] } | undefined {
  return decodePercent(text, false)
}

/**
 * The `application/x-www-form-urlencoded` reading: percent-decoding plus `+` as a space, so that
 * `aws_secret_access_key+%3D+…` reads as the assignment it encodes.
 */
function formDecode(text: string): { text: string; starts: number[] } | undefined {
  // Only what can be a form body or a query: a `+` with a `=` somewhere.
  if (!text.includes('+') || !text.includes('=')) return undefined
  return decodePercent(text, true)
}

function decodePercent(text: string, plusIsSpace: boolean): { text: string; starts: number[] } | undefined {
  if (!text.includes('%') && !plusIsSpace) return undefined
  let out = ''
  const starts: number[] = []
  let changed = false
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 37 && i + 2 < text.length) {
      const hi = hexValue(text.charCodeAt(i + 1))
      const lo = hexValue(text.charCodeAt(i + 2))
      if (hi >= 0 && lo >= 0 && hi < 8) {
        starts.push(i)
        out += String.fromCharCode(hi * 16 + lo)
        i += 3
        changed = true
        continue
      }
    }
    starts.push(i)
    if (plusIsSpace && text.charCodeAt(i) === 43) {
      out += ' '
      changed = true
    } else out += text[i]
    i++
  }
  return changed ? { text: out, starts } : undefined
}

const DECODERS = [unescapeJson, percentDecode, formDecode]

/**
 * The decoded views of `text`, each mapped back onto `text` itself, views of views included (a
 * percent-encoded URL inside escaped JSON). Empty for the usual string, which holds neither a backslash
 * nor a `%`.
 *
 * @example
 * const [view] = decodedViews('a\\nsk-1')
 * view?.text // 'a\nsk-1'
 * view?.starts[2] // 3: the `s` is at offset 3 of the raw text
 */
export function decodedViews(text: string): DecodedView[] {
  if (!text.includes('\\') && !text.includes('%') && !text.includes('+')) return []
  const views: DecodedView[] = []
  const seen = new Set<string>([text])
  let layer: DecodedView[] = [{ text, starts: identity(text.length) }]
  for (let depth = 0; depth < MAX_DEPTH && layer.length && views.length < MAX_VIEWS; depth++) {
    const next: DecodedView[] = []
    for (const view of layer) {
      for (const decode of DECODERS) {
        const d = decode(view.text)
        if (!d || seen.has(d.text) || views.length >= MAX_VIEWS) continue
        seen.add(d.text)
        // Compose: decoded character i of this view begins at view offset d.starts[i], which begins at
        // raw offset view.starts[...].
        const starts = new Int32Array(d.text.length + 1)
        for (let i = 0; i < d.text.length; i++) starts[i] = view.starts[d.starts[i]!]!
        starts[d.text.length] = view.starts[view.text.length]!
        const composed = { text: d.text, starts }
        views.push(composed)
        next.push(composed)
      }
    }
    layer = next
  }
  return views
}

function identity(length: number): Int32Array {
  const a = new Int32Array(length + 1)
  for (let i = 0; i <= length; i++) a[i] = i
  return a
}
