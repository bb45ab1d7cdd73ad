import fc from 'fast-check'
import type { JsonObject, JsonValue } from '../schema/json.ts'

/**
 * fast-check arbitraries for the strings, keys, numbers, JSON values, instants and ids runs are made of
 * (test-only: `test-*` files are excluded from the build).
 *
 * Secrets: `writeCassette` redacts, so a generated string that looks like a secret would come back
 * replaced and a round trip would fail for a reason that is not a bug. Comparing after applying the same
 * redaction would hide real redactor damage (a rule that eats a ULID or a hash), so instead the strings
 * cannot look like secrets, by construction:
 * - random strings use an alphabet without `p`, `t` and `k` in either case (nor the Kelvin sign, which
 *   lower-cases to `k`). Every built-in sensitive key and key suffix (`token`, `apikey`, `password`,
 *   `secret`, `cookie`, `pwd`, ...) contains one of them, so no generated key is sensitive;
 * - random strings are at most 12 characters, shorter than any built-in value pattern can match, and
 *   the free text is made of short pieces joined by spaces, which no pattern spans;
 * - the fixed vocabulary contains no secret shapes or hint words (`bearer`, `basic`, `://x:y@`).
 * The round-trip test then asserts exact equality, so a redactor false positive on ordinary data fails it.
 *
 * Numbers include negatives, fractions, extremes and `-0`. The canonical form writes `-0` as `0`, so a
 * round trip compares against the run with `-0` replaced by `0` (see `normalizeNegativeZero`).
 */

const SAFE_CHARS = [
  ...'abcdefghijlmnoqrsuvwxyzABCDEFGHIJLMNOQRSUVWXYZ0123456789',
  ...' .,;:!?-_/\\"\'{}[]()<>#$%^&*+=|~`',
  '\n',
  '\t',
  '\r',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  '\ufeff',
  'é',
  'ß',
  'Ω',
  'ж',
  '中',
  '日',
  'ع',
  'ש',
  '\u0301', // a combining accent
  '\u200d', // zero-width joiner
  '😀', // astral: a surrogate pair in UTF-16, 4 bytes in UTF-8
  '𝔘',
  '𐍈',
  '👩‍💻',
  '\ud800', // a lone surrogate: JSON.stringify escapes it, JSON.parse restores it
]

const WORDS = [
  'order',
  'refund',
  'arrived',
  'broken',
  'hello',
  'über',
  '注文',
  '😀',
  'A17',
  '42',
  'null',
  '"quoted"',
]

/** Keys that must survive a round trip: prototype names, path syntax, empty, astral, control. */
const SPECIAL_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  '',
  'a.b',
  'x/y~z',
  '$ref',
  '😀',
  'ключ',
  '\u0000',
  ' ',
]

export const safeString = fc.string({ unit: fc.constantFrom(...SAFE_CHARS), maxLength: 12 })

export const text: fc.Arbitrary<string> = fc.oneof(
  safeString,
  fc.array(fc.oneof(fc.constantFrom(...WORDS), safeString), { maxLength: 8 }).map((ws) => ws.join(' ')),
)

/** Keys of free JSON, including `__proto__`. */
export const jsonKey = fc.oneof(fc.constantFrom(...SPECIAL_KEYS), safeString)
/** Keys of zod records (headers, params.extra): zod skips `__proto__` in records, so it is left out there. */
export const recordKey = safeString.filter((k) => k !== '__proto__')

export const jsonNumber = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 0.1, -1.5, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, -Number.MAX_VALUE),
)

/** Builds an object from entries without assigning through `__proto__`'s setter. */
export function objectOf<V>(entries: ReadonlyArray<readonly [string, V]>): Record<string, V> {
  const out: Record<string, V> = {}
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
  return out
}

export const uniqueEntries = <V>(key: fc.Arbitrary<string>, value: fc.Arbitrary<V>, maxLength: number) =>
  fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength }).map(objectOf)

export const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    jsonNumber,
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    uniqueEntries(jsonKey, tie('value'), 4),
  ),
})).value

export const jsonObject: fc.Arbitrary<JsonObject> = uniqueEntries(jsonKey, json, 4)

export const instant = fc
  .tuple(
    fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }),
    fc.constantFrom('Z', '+02:00', '-05:30'),
  )
  .map(([ms, zone]) => {
    const iso = new Date(ms).toISOString()
    return zone === 'Z' ? iso : iso.replace('Z', zone)
  })

// Crockford base-32 without K, P and T: still valid ULIDs, and never a fragment of an `AKIA…` key.
const ULID_CHARS = [...'0123456789ABCDEFGHJMNQRSVWXYZ']
export const runId = fc.string({ unit: fc.constantFrom(...ULID_CHARS), minLength: 26, maxLength: 26 })
export const hex = (n: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n })
export const count = fc.nat({ max: 100_000 })
export const nonNegative = fc.oneof(fc.nat(), fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }))

/**
 * The run a round trip gives back: `-0` becomes `0` (the canonical form writes it so; JSON.parse
 * would keep `-0`, but no two JSON tools agree on it). Everything else must come back as it was.
 *
 * @example
 * expect(loadCassette(path).run).toEqual(normalizeNegativeZero(run))
 */
export function normalizeNegativeZero<T>(value: T): T {
  if (typeof value === 'number') return (value === 0 ? 0 : value) as T
  if (Array.isArray(value)) return value.map(normalizeNegativeZero) as T
  if (typeof value === 'object' && value !== null) {
    return objectOf(Object.entries(value).map(([k, v]) => [k, normalizeNegativeZero(v)] as const)) as T
  }
  return value
}
