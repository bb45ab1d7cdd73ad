/**
 * Searches written bytes for planted secrets: the sensitive parts themselves and every 12-character
 * substring of them, in the bytes as written and in the views a reader could decode them into (JSON
 * string escapes, once and twice; percent-encoding; form encoding; HTML entities; and their
 * combinations). Decoding the haystack, rather than encoding each needle, keeps the search to one
 * pass per view however many secrets were planted.
 */

/** The length of the substrings searched for. */
export const GRAM = 12

export interface LeakNeedle {
  key: string
  sensitive: readonly string[]
}

/** One leaked piece: which view of the bytes held it and where. */
export interface Leak {
  view: string
  at: number
  gram: string
}

const B = 131
let BPOW = 1
for (let i = 0; i < GRAM - 1; i++) BPOW = Math.imul(BPOW, B)

function hashOf(s: string, from: number): number {
  let h = 0
  for (let i = from; i < from + GRAM; i++) h = (Math.imul(h, B) + s.charCodeAt(i)) | 0
  return h
}

const JSON_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

export function jsonUnescape(s: string): string {
  return s.replace(
    /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g,
    (_m, hex: string | undefined, c: string | undefined) =>
      hex ? String.fromCharCode(Number.parseInt(hex, 16)) : JSON_ESCAPES[c!]!,
  )
}

export function percentDecode(s: string): string {
  return s.replace(/(?:%[0-9a-fA-F]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m)
    } catch {
      return Buffer.from(m.replace(/%/g, ''), 'hex').toString('latin1')
    }
  })
}

export function formDecode(s: string): string {
  return percentDecode(s.replace(/\+/g, ' '))
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }

export function htmlUnescape(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (m, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10),
      )
    return ENTITIES[e] ?? m
  })
}

const DECODERS: ReadonlyArray<[string, (s: string) => string, RegExp]> = [
  ['json', jsonUnescape, /\\/],
  ['percent', percentDecode, /%[0-9a-fA-F]{2}/],
  ['form', formDecode, /\+/],
  ['html', htmlUnescape, /&[#a-z]/],
]

/** The bytes as written and every decoding of them up to two steps deep, distinct ones only. */
export function viewsOf(text: string): Map<string, string> {
  const views = new Map<string, string>([['raw', text]])
  const seen = new Set([text])
  let frontier: Array<[string, string]> = [['raw', text]]
  for (let depth = 0; depth < 2; depth++) {
    const next: Array<[string, string]> = []
    for (const [name, value] of frontier) {
      for (const [dname, decode, trigger] of DECODERS) {
        if (!trigger.test(value)) continue
        const out = decode(value)
        if (seen.has(out)) continue
        seen.add(out)
        const label = name === 'raw' ? dname : `${name}+${dname}`
        views.set(label, out)
        next.push([label, out])
      }
    }
    frontier = next
  }
  return views
}

/**
 * An index of every 12-character substring of the planted sensitive parts, by rolling hash. A
 * substring that two planted instances share (a constant stretch of a format) is left out: it
 * could not say which instance leaked. Parts shorter than 12 characters are searched whole.
 */
export class LeakIndex {
  private readonly grams = new Map<string, string>()
  private readonly hashes = new Set<number>()
  private readonly short: Array<{ key: string; part: string }> = []

  constructor(needles: readonly LeakNeedle[]) {
    const owners = new Map<string, Set<string>>()
    for (const n of needles) {
      for (const part of n.sensitive) {
        if (part.length < GRAM) {
          this.short.push({ key: n.key, part })
          continue
        }
        for (let i = 0; i + GRAM <= part.length; i++) {
          const g = part.slice(i, i + GRAM)
          const set = owners.get(g) ?? new Set<string>()
          set.add(n.key)
          owners.set(g, set)
        }
      }
    }
    for (const [g, set] of owners) {
      if (set.size !== 1) continue
      this.grams.set(g, [...set][0]!)
      this.hashes.add(hashOf(g, 0))
    }
  }

  /** Every planted instance found in `written` (all its views), with up to 3 leaked pieces each. */
  search(written: string | readonly string[]): Map<string, Leak[]> {
    const found = new Map<string, Leak[]>()
    const note = (key: string, leak: Leak) => {
      const list = found.get(key) ?? []
      if (list.length < 3) list.push(leak)
      found.set(key, list)
    }
    for (const text of typeof written === 'string' ? [written] : written) {
      for (const [view, s] of viewsOf(text)) {
        if (s.length >= GRAM) {
          let h = hashOf(s, 0)
          for (let i = 0; ; i++) {
            if (this.hashes.has(h)) {
              const g = s.slice(i, i + GRAM)
              const key = this.grams.get(g)
              if (key) note(key, { view, at: i, gram: g })
            }
            if (i + GRAM >= s.length) break
            h = (Math.imul(h - Math.imul(s.charCodeAt(i), BPOW), B) + s.charCodeAt(i + GRAM)) | 0
          }
        }
        for (const { key, part } of this.short) {
          const at = s.indexOf(part)
          if (at >= 0) note(key, { view, at, gram: part })
        }
      }
    }
    return found
  }
}

/** Shorthand: the planted instances of `needles` found in `written`. */
export function searchLeaks(
  written: string | readonly string[],
  needles: readonly LeakNeedle[],
): Map<string, Leak[]> {
  return new LeakIndex(needles).search(written)
}
