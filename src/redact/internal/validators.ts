/**
 * Building blocks of the pattern validators: the checks that tell a credential from text shaped like
 * one (a CSS class `sk-button-primary-large`, `YOUR_API_KEY`, AWS's documented `…EXAMPLE` key id, a
 * `Basic Concepts` heading). A pattern finds candidates cheaply; its validator decides.
 *
 * Every check here is tuned so that a real, randomly generated credential never fails it: a false
 * negative leaks a secret to disk, while a false positive only hides a word from the replay. The
 * unit tests run thousands of seeded random tokens of each alphabet through them to hold that line.
 */
import { shannonEntropy } from './entropy.ts'

const BASE62_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

let crcTable: Uint32Array | undefined

/**
 * CRC-32 (IEEE 802.3, the zlib one) of a string's UTF-8 bytes; ASCII tokens are all this needs.
 *
 * @example
 * crc32('123456789') // 0xcbf43926
 */
export function crc32(text: string): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      crcTable[n] = c >>> 0
    }
  }
  let crc = 0xffffffff
  for (const byte of Buffer.from(text, 'utf8')) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

/**
 * Base62 (digits, then upper case, then lower case) of a number, left-padded with `0` to `width`.
 *
 * @example
 * base62(61, 2) // '0z'
 */
export function base62(value: number, width: number): string {
  let out = ''
  let n = value
  while (n > 0) {
    out = BASE62_DIGITS[n % 62]! + out
    n = Math.floor(n / 62)
  }
  return out.padStart(width, '0')
}

/**
 * Whether a GitHub-style token carries a valid checksum. GitHub's tokens (`ghp_`, `gho_`, `ghu_`,
 * `ghs_`, `ghr_`) and npm's (`npm_`) are a prefix, 30 random base62 characters, and the CRC-32 of those
 * 30 characters written as 6 base62 digits (GitHub's engineering blog, April 2021; npm's changelog,
 * September 2021). Only that 36-character body is checked: longer bodies are not of this format.
 *
 * @example
 * hasValidTokenChecksum('ghp_' + body30 + base62(crc32(body30), 6)) // true
 */
export function hasValidTokenChecksum(token: string): boolean {
  const body = token.slice(token.indexOf('_') + 1)
  if (body.length !== 36 || !/^[A-Za-z0-9]+$/.test(body)) return false
  return base62(crc32(body.slice(0, 30)), 6) === body.slice(30)
}

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

/**
 * Verifies a Bech32 string's checksum (BIP 173), as used by `age` secret keys. Case-insensitive, as the
 * format requires one case throughout.
 *
 * @example
 * isValidBech32('AGE-SECRET-KEY-1…') // true for a key `age-keygen` wrote
 */
export function isValidBech32(text: string): boolean {
  const s = text.toLowerCase()
  if (s !== text && text.toUpperCase() !== text) return false
  const sep = s.lastIndexOf('1')
  if (sep < 1 || s.length - sep < 7) return false
  const values: number[] = []
  for (const c of s.slice(0, sep)) values.push(c.charCodeAt(0) >> 5)
  values.push(0)
  for (const c of s.slice(0, sep)) values.push(c.charCodeAt(0) & 31)
  for (const c of s.slice(sep + 1)) {
    const v = BECH32.indexOf(c)
    if (v === -1) return false
    values.push(v)
  }
  const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
  let chk = 1
  for (const v of values) {
    const top = chk >>> 25
    chk = ((chk & 0x1ffffff) << 5) ^ v
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i]!
  }
  return chk === 1
}

/**
 * What documentation and templates put where a credential goes. Each word is matched in one case
 * (lower, UPPER or Capitalised), never case-insensitively: in a random base62 token a given 7-letter
 * word in one case turns up about once in 10^12 characters, and `ExAmPlE` is no placeholder.
 */
const PLACEHOLDER_WORDS = [
  'example',
  'sample',
  'placeholder',
  'dummy',
  'changeme',
  'change_me',
  'replace_me',
  'replaceme',
  'redacted',
  'insert_',
  'lorem',
  'foobar',
  'xxxxxx',
  'your_',
  'your-',
  'yourkey',
  'yourtoken',
  'yoursecret',
  'yourapi',
  'yourpass',
  'my_key',
  'my-key',
  'mykey',
  'my_token',
  'my-token',
  'mysecret',
  'my_secret',
  'my-secret',
  'api_key_here',
  'key_here',
  'token_here',
  'secret_here',
  'goes_here',
  '_here',
  '-here',
  'my-api',
  'my_api',
  'myapi',
  'myToken',
  'myKey',
  'mySecret',
  'myPassword',
  'replace-with',
  'replace_with',
  'not-a-',
  'not_a_',
  'not-a-real',
  'not_a_real',
  'notareal',
  'fake-',
  'fake_',
  '…',
]
const PLACEHOLDER_RE = new RegExp(
  PLACEHOLDER_WORDS.flatMap((w) => {
    const cap = w[0]!.toUpperCase() + w.slice(1)
    return [w, w.toUpperCase(), cap]
  })
    .map((w) => w.replace(/[-.]/g, '\\$&'))
    .join('|'),
)

/** Whole-value forms of a placeholder or a reference to a secret kept elsewhere. */
const REFERENCE_RE = new RegExp(
  [
    '^<[^>]*>?$', // <your-key>, <token>
    '^\\[[^\\]]*\\]?$', // [API_KEY]
    '^\\{\\{.*\\}?\\}?$', // {{ secrets.TOKEN }}
    '^\\$\\{?[A-Za-z_][A-Za-z0-9_]*\\}?$', // $TOKEN, ${TOKEN}
    '^\\$\\{', // ${TOKEN:-default}
    '^\\$\\(', // $(cat token.txt)
    '^%[A-Za-z_][A-Za-z0-9_]*%$', // %TOKEN% (Windows)
    '^(?:process\\.env|import\\.meta\\.env|os\\.environ|os\\.getenv|System\\.getenv|Deno\\.env|ENV\\[|env\\(|getenv\\(|secrets\\.|vars\\.|settings\\.|config\\.|self\\.|this\\.)',
    '^[*•·.…#_-]+$', // ****, ••••, ..., ----
    '^[xX]+$', // xxxxxxxx
    '^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$', // API_KEY, OPENAI_API_KEY (a variable's name, not its value)
    '^[a-z]+(?:_[a-z]+)+$', // api_key, access_token (a variable's name)
  ].join('|'),
)

/**
 * Whether the whole of `value` is a reference or a stand-in (`${X}`, `$X`, `<key>`, `process.env.X`,
 * `****`, `API_KEY`), not counting placeholder words inside it.
 *
 * @example
 * isReference('${OPENAI_API_KEY}') // true
 */
export function isReference(value: string): boolean {
  return REFERENCE_RE.test(value)
}

/**
 * Whether `value` is a placeholder or a reference rather than a secret: `YOUR_API_KEY`, `<your-key>`,
 * `${OPENAI_API_KEY}`, `$TOKEN`, `process.env.X`, `****`, `xxxx`, `sk-…EXAMPLE…`, `changeme`, one
 * character repeated over half the value, and values made mostly of runs of consecutive characters
 * (`0123456789abcdefghij`).
 *
 * @example
 * isPlaceholder('YOUR_API_KEY') // true
 * isPlaceholder('AKIAIOSFODNN7EXAMPLE') // true
 * isPlaceholder('q8Zk3Vx9LmP2rT7wYb4Nc6Hd') // false
 */
export function isPlaceholder(value: string): boolean {
  if (REFERENCE_RE.test(value) || PLACEHOLDER_RE.test(value) || isElided(value)) return true
  // Six equal characters in a row happen once in 10^9 base62 positions but once in 10^6 hex ones.
  const run = alphabetSize(value) <= 16 ? 10 : 6
  const longest = longestRun(value)
  const seq = longestSequence(value)
  return (
    (longest === value.length && longest >= 4) ||
    longest >= Math.max(run, value.length / 2) ||
    (seq >= 5 && seq === value.length) ||
    sequentialShare(value) >= 0.6
  )
}

/**
 * Whether `value` is shortened with an ASCII ellipsis, as documentation shows a key: `sk-...`,
 * `...4f2a`, `sk-proj-abc...xyz`. In the middle of a value, three dots only mark an elision when little
 * is left around them (16 characters at most): a secret whose alphabet has a `.` holds `...` once in a
 * few ten thousand draws, and is no less a secret for it.
 *
 * @example
 * isElided('sk-proj-...') // true
 * isElided('q8Zk3Vx9...LmP2rT7wYb4Nc6Hd') // false
 */
export function isElided(value: string): boolean {
  const at = value.indexOf('...')
  if (at === -1) return false
  return at === 0 || /\.\.\.$/.test(value) || value.replace(/\.{3,}/g, '').length <= 16
}

/**
 * The share of `value` in runs of five or more consecutive characters, up or down. A hand-made fake
 * is mostly such runs (`0123456789abcdef…`); a test key with a `0123456789` tail, or a random token
 * (where a run of four starts once in 10^5 base62 positions), is not.
 */
function sequentialShare(value: string): number {
  const inRun = new Uint8Array(value.length)
  for (const step of [1, -1]) {
    let start = 0
    for (let i = 1; i <= value.length; i++) {
      if (i < value.length && value.charCodeAt(i) - value.charCodeAt(i - 1) === step) continue
      if (i - start >= 5) inRun.fill(1, start, i)
      start = i
    }
  }
  return value.length === 0 ? 0 : inRun.reduce((n, b) => n + b, 0) / value.length
}

/** The longest run of one repeated character. */
export function longestRun(value: string): number {
  let best = 0
  let run = 0
  for (let i = 0; i < value.length; i++) {
    run = i > 0 && value[i] === value[i - 1] ? run + 1 : 1
    if (run > best) best = run
  }
  return best
}

/** The longest run of consecutive characters, up or down (`abcdef`, `987654`, `ABCDE`). */
export function longestSequence(value: string): number {
  let best = 1
  let up = 1
  let down = 1
  for (let i = 1; i < value.length; i++) {
    const d = value.charCodeAt(i) - value.charCodeAt(i - 1)
    up = d === 1 ? up + 1 : 1
    down = d === -1 ? down + 1 : 1
    best = Math.max(best, up, down)
  }
  return value.length === 0 ? 0 : best
}

/**
 * Words joined by separators, as in CSS classes, slugs and identifiers (`button-primary-large`,
 * `fading_circle_dot`): every part is letters in one style, and there are at least two parts. Random
 * tokens have digits or mixed-case parts; a 32-character hex string with no digit is once in 10^13.
 *
 * @example
 * looksLikeWords('button-primary-large') // true
 * looksLikeWords('proj-Ab3dEf6hIj9k') // false
 */
export function looksLikeWords(value: string): boolean {
  const parts = value.split(/(?:[-_.+ ]|%[0-9A-Fa-f]{2})+/).filter(Boolean)
  if (parts.length < 2) return false
  return parts.every((p) => /^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+|v?\d{1,4})$/.test(p))
}

/** The alphabet size a token's character classes suggest (16 for one-case hex, 62 for base62, …). */
function alphabetSize(value: string): number {
  const lower = /[a-z]/.test(value)
  const upper = /[A-Z]/.test(value)
  const digit = /\d/.test(value)
  const other = /[^A-Za-z0-9]/.test(value)
  if (!other && (lower !== upper || (!lower && !upper))) {
    const hexOnly = lower ? /^[0-9a-f]+$/.test(value) : /^[0-9A-F]*$/.test(value)
    if (hexOnly) return digit && !lower && !upper ? 10 : 16
  }
  return (lower ? 26 : 0) + (upper ? 26 : 0) + (digit ? 10 : 0) + (other ? 4 : 0)
}

/** Parts of an identifier: `azure`, `AD`, `Token`, `Provider`. */
const HUMP = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g

/**
 * Whether `value` is a code identifier of two or more words: `NonSharedBuffer`, `azureADTokenProvider`,
 * `experimental_toolApprovalSecret`. Letters and underscores only, with words of 3.5 letters on
 * average; random letters switch case every one or two characters. Digits make it a value
 * (`Summer2024`), so they are never an identifier here.
 *
 * @example
 * isIdentifier('azureADTokenProvider') // true
 * isIdentifier('xYzAbCqwErTy') // false
 */
export function isIdentifier(value: string): boolean {
  if (!/^[A-Za-z_$]+$/.test(value) || !/[a-z]/.test(value)) return false
  const parts = value.match(HUMP) ?? []
  if (parts.length < 2 || parts.reduce((n, p) => n + p.length, 0) / parts.length < 3.5) return false
  // Words are pronounceable: a vowel in every part of three letters or more, never four consonants in
  // a row. Measured on seeded random base62: 1 in 2,000 tokens of 16 characters passes all of this,
  // none of 40; hence `looksRandom` asks it only from 40 characters on.
  return parts.every((p) => (p.length < 3 || /[aeiouy]/i.test(p)) && !/[b-df-hj-np-tv-xz]{4}/i.test(p))
}

export interface RandomOptions {
  /** Shortest acceptable value (default 8). */
  minLength?: number
}

/**
 * Whether `value` is plausibly random key material: long enough, not a placeholder, not words joined
 * by separators, and with a Shannon entropy at least 60% of the most its length and alphabet allow.
 * Random tokens sit near 90% of that bound (a 20-character base62 token: ≈ 3.9 of 4.3 bits); a
 * hand-typed `aaaabbbbccccdddd` sits at 50%.
 *
 * @example
 * looksRandom('q8Zk3Vx9LmP2rT7wYb4Nc6Hd') // true
 * looksRandom('1234567890abcdef1234') // false
 */
export function looksRandom(value: string, options: RandomOptions = {}): boolean {
  if (value.length < (options.minLength ?? 8)) return false
  if (isPlaceholder(value) || looksLikeWords(value)) return false
  if (value.length >= 40 && isIdentifier(value)) return false
  const bound = Math.log2(Math.min(value.length, alphabetSize(value)))
  return shannonEntropy(value) >= 0.6 * bound
}

/** A camelCase or PascalCase name of letters only: `keyVar`, `authToken`, `ApiKey`. */
export const CAMEL = /^(?:[a-z]{2,}|[A-Z][a-z]{2,})(?:[A-Z][a-z]{2,})+$/

/**
 * Whether `value` looks like a credential rather than a word: not a placeholder, not one or more
 * plain words, and with a digit, a symbol or a case change after its first letter. For contexts that
 * name a credential (`Authorization: Token …`, `?token=…`) where the value itself has no fixed format.
 *
 * @example
 * looksLikeCredential('opaque123') // true
 * looksLikeCredential('coffee') // false
 */
export function looksLikeCredential(raw: string, minLength = 6): boolean {
  // "bearer authentication." ends a sentence; a token does not end with a full stop.
  const value = raw.replace(/[.,;:!?)\]]+$/, '')
  if (value.length < minLength || isPlaceholder(value) || looksLikeWords(value)) return false
  // One word, or a camelCase name (`myToken`, `authToken`): code, not a credential.
  if (/^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)$/.test(value) || (value.length <= 24 && CAMEL.test(value))) return false
  return /[0-9]/.test(value) || /[^A-Za-z0-9]/.test(value) || /.[A-Z]/.test(value)
}

/**
 * Whether a `Basic` credential decodes to `user:password`, as RFC 7617 defines it: printable text with
 * a colon. A heading (`Basic README`) decodes to bytes that are neither.
 *
 * @example
 * isBasicCredential(Buffer.from('svc:s3cret').toString('base64')) // true
 * isBasicCredential('Concepts') // false
 */
export function isBasicCredential(value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 === 1) return false
  const text = Buffer.from(value, 'base64').toString('latin1')
  const colon = text.indexOf(':')
  // Printable ASCII and Latin-1 letters only: random base64 bytes almost always include control bytes.
  return colon >= 0 && /^[\x20-\x7e\xa0-\xff]+$/.test(text) && !isPlaceholder(text.slice(colon + 1))
}

/**
 * Whether a JWT-shaped string's header decodes to a JSON object with an `alg` or `typ`, as every JWT,
 * JWS and JWE header does.
 *
 * @example
 * isJwt(headerB64 + '.' + payloadB64 + '.' + sig) // true
 */
export function isJwt(value: string): boolean {
  const header = value.slice(0, value.indexOf('.'))
  try {
    const parsed: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'))
    return typeof parsed === 'object' && parsed !== null && ('alg' in parsed || 'typ' in parsed)
  } catch {
    return false
  }
}

/**
 * A validator for a prefixed token: strips the part of the match that `prefix` covers (`sk-proj-`,
 * `glpat-`) and requires the rest to look random.
 *
 * @example
 * const validate = randomAfter(/^gsk_/)
 * validate('gsk_' + 'q8Zk3Vx9LmP2rT7wYb4Nc6Hd') // true
 * validate('gsk_your_groq_api_key_here') // false
 */
export function randomAfter(prefix: RegExp, options: RandomOptions = {}): (secret: string) => boolean {
  return (secret) => {
    const cut = prefix.exec(secret)?.[0].length ?? 0
    return !isPlaceholder(secret) && looksRandom(secret.slice(cut), options)
  }
}

/**
 * Whether a PEM private key block carries key material: at least 32 base64 characters after its
 * `BEGIN` line and no ellipsis. A bare header (`PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----`) or a
 * shortened example (`MIIEow...`) in documentation has nothing to hide.
 *
 * @example
 * hasKeyMaterial('-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----') // false
 */
export function hasKeyMaterial(block: string): boolean {
  const body = block
    .replace(/-----(?:BEGIN|END)[A-Z0-9 ]*-----/g, '')
    .replace(/\\[nrt]/g, '')
    .replace(/^[A-Za-z-]+:.*$/gm, '') // `Proc-Type:` and `DEK-Info:` lines of an encrypted key
  if (/\.\.\.|…/.test(body)) return false
  return (body.match(/[A-Za-z0-9+/=]/g)?.length ?? 0) >= 32
}
