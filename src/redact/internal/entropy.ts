/**
 * The high-entropy heuristic of the leak scanner: a random-looking token where nothing says it should be
 * random is probably a credential of a format no pattern knows.
 *
 * The thresholds are not guesses. They are the 1st percentile of the Shannon entropy (bits per character)
 * of uniformly random tokens of each length, measured with 20,000 samples per cell (Node 22,
 * Math.random): a random token of that length and alphabet is flagged 99 times in 100. Entropy alone
 * cannot tell a 40-character camelCase identifier (≈4.2 bits) from a 24-character random key (≈4.25),
 * hence the per-length tables and the shape filters below.
 */

/** Random base62/base64 tokens: [length, 1st-percentile entropy]. */
const MIXED: ReadonlyArray<readonly [number, number]> = [
  [20, 3.65],
  [24, 3.86],
  [28, 4.08],
  [32, 4.2],
  [40, 4.46],
  [48, 4.63],
  [64, 4.9],
  [96, 5.22],
  [128, 5.4],
  [256, 5.69],
  [512, 5.82],
]
/** Random tokens of two classes (lower case and digits, or upper case and digits): base36. */
const TWO_CLASS: ReadonlyArray<readonly [number, number]> = [
  [28, 3.77],
  [48, 4.26],
  [96, 4.7],
  [128, 4.82],
  [256, 5.0],
  [512, 5.09],
]
/** Random hexadecimal tokens. */
const HEX: ReadonlyArray<readonly [number, number]> = [
  [28, 3.17],
  [32, 3.26],
  [40, 3.4],
  [48, 3.51],
  [64, 3.63],
  [96, 3.76],
  [128, 3.83],
  [256, 3.91],
  [512, 3.96],
]

function threshold(table: ReadonlyArray<readonly [number, number]>, n: number): number {
  const first = table[0]!
  if (n <= first[0]) return first[1]
  for (let i = 1; i < table.length; i++) {
    const [x1, y1] = table[i]!
    const [x0, y0] = table[i - 1]!
    if (n <= x1) return y0 + ((y1 - y0) * (n - x0)) / (x1 - x0)
  }
  return table[table.length - 1]![1]
}

/**
 * Shannon entropy in bits per character.
 *
 * @example
 * shannonEntropy('aaaa') // 0
 * shannonEntropy('abcd') // 2
 */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>()
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1)
  let h = 0
  for (const n of counts.values()) {
    const p = n / s.length
    h -= p * Math.log2(p)
  }
  return h
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const WORD_PART = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g
const SEGMENT_WORD = /^(?:[A-Z]?[a-z]+|[A-Z]+|v?\d+)$/

/** `docs/API-Reference/v2/Chat-Completions`, `text-embedding-3-large`: words between separators. */
function looksLikeSlug(token: string): boolean {
  const segments = token.split(/[-_/.+=]+/).filter(Boolean)
  return segments.length >= 3 && segments.every((s) => SEGMENT_WORD.test(s))
}

/**
 * `ConversationSummaryBufferMemory2024`: long runs of one case. Random base62 switches class every one
 * or two characters (mean part length ≈ 1.7); camelCase words average 4 or more.
 */
function looksLikeCamelCase(token: string): boolean {
  const parts = token.match(WORD_PART) ?? []
  if (parts.length === 0) return false
  const letters = parts.reduce((n, p) => n + p.length, 0)
  return letters / parts.length >= 3.5
}

export interface EntropyOptions {
  /** Shortest token looked at (default 20; hex and two-class tokens need 32 whatever this says). */
  minLength?: number
}

/**
 * Whether one token looks like a random secret. UUIDs are never flagged: they are the most common id
 * format of all (trace ids, object ids), and a UUID-shaped key cannot be told from an id by its shape;
 * such keys need a key or pattern rule.
 *
 * @example
 * isHighEntropy('q8Zk3Vx9LmP2rT7wYb4Nc6Hd') // true
 * isHighEntropy('ConversationSummaryBufferMemory2024') // false
 */
export function isHighEntropy(token: string, options: EntropyOptions = {}): boolean {
  const n = token.length
  const min = options.minLength ?? 20
  if (n < min || n > 2048 || UUID.test(token)) return false
  const upper = /[A-Z]/.test(token)
  const lower = /[a-z]/.test(token)
  const digit = /\d/.test(token)
  if (/^[0-9a-fA-F]+$/.test(token)) {
    // One case only: mixed-case hex is not hex. All digits is a number.
    return n >= Math.max(32, min) && upper !== lower && shannonEntropy(token) >= threshold(HEX, n)
  }
  // Paths and slugs: random base64 has a `/` or `-` about once in 32 characters.
  if ((token.match(/[/\-_.]/g)?.length ?? 0) > Math.max(3, n / 8)) return false
  if (looksLikeSlug(token)) return false
  if (upper && lower) {
    // Identifiers are camelCase words; a short one without a digit is a name (`getUserAccountSettings`).
    if ((!digit && n < 32) || looksLikeCamelCase(token)) return false
    return shannonEntropy(token) >= threshold(MIXED, n)
  }
  // Lower case and digits (base36), or upper case and digits (base32, ULIDs): runs of one case are
  // long in random text too, so no word test here; length and entropy decide.
  return digit && n >= Math.max(32, min) && shannonEntropy(token) >= threshold(TWO_CLASS, n)
}

/** Candidate tokens: runs of base64/base64url/hex characters, with their offsets. */
const TOKEN = /[A-Za-z0-9+/=_\-.]{20,}/g

/**
 * The high-entropy tokens of a text, with offsets. A token right after `base64,` (a data URL: an
 * image or a file the agent sent) is content, not a credential.
 *
 * @example
 * findHighEntropy('key q8Zk3Vx9LmP2rT7wYb4Nc6Hd here') // [{ start: 4, end: 28, token: 'q8Zk…' }]
 */
export function findHighEntropy(
  text: string,
  options: EntropyOptions = {},
): Array<{ start: number; end: number; token: string }> {
  const out: Array<{ start: number; end: number; token: string }> = []
  TOKEN.lastIndex = 0
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    // Dots split tokens (hosts, versions, file names) but JWT-like dotted tokens were matched by a pattern.
    let offset = m.index
    for (const part of m[0].split('.')) {
      const start = offset
      offset += part.length + 1
      const token = part.replace(/^[-_/+=]+|[-_/+=]+$/g, '')
      if (token.length < 20 || text.slice(Math.max(0, start - 7), start) === 'base64,') continue
      if (isHighEntropy(token, options)) {
        const s = start + part.indexOf(token)
        out.push({ start: s, end: s + token.length, token })
      }
    }
  }
  return out
}
