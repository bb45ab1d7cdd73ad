import fc from 'fast-check'
import stableStringify from 'fast-json-stable-stringify'
import { describe, expect, it } from 'vitest'
import { canonicalStringify, compareCodePoints } from '../canonical-json.ts'
import type { JsonValue } from '../schema/json.ts'

/**
 * What docs/cassette.md ("Canonical JSON and fast-json-stable-stringify") claims about crashlab's
 * canonical writer and fast-json-stable-stringify, checked: on JSON data the two write the same bytes
 * unless an object has two keys that UTF-16 order and code point order sort differently (a key with an
 * astral character against one with a character in U+E000–U+FFFF); both always write the same data;
 * and both key equal values equally, which is what lets the http call key use the library. Values
 * JSON cannot carry are where they part ways, listed case by case.
 */

/** Keys that exercise both orders: ASCII, integer-like, accented, U+E000–U+FFFF, astral. */
const key = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom('0', '2', '10', 'a', 'é', '\uE000', '\uFFEE', '😀', '𝒳', 'a😀', 'a\uFFFF'),
  fc.string({ maxLength: 3, unit: 'grapheme' }),
)

const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1.5, 1e21, 5e-324, -1e-7),
    fc.string({ maxLength: 6, unit: 'grapheme' }),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }).map((d) => ({ ...d })),
  ),
})).value

/** True when every object's keys sort the same by UTF-16 code units and by code points. */
function ordersAgree(v: JsonValue): boolean {
  if (v === null || typeof v !== 'object') return true
  if (Array.isArray(v)) return v.every(ordersAgree)
  const keys = Object.keys(v)
  const utf16 = [...keys].sort()
  const points = [...keys].sort(compareCodePoints)
  return utf16.every((k, i) => k === points[i]) && Object.values(v).every(ordersAgree)
}

/** A copy with every object's keys inserted in reverse order: the same data, built another way. */
function reordered(v: JsonValue): JsonValue {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map(reordered)
  return Object.fromEntries(
    Object.keys(v)
      .reverse()
      .map((k) => [k, reordered(v[k]!)]),
  )
}

describe('canonicalStringify and fast-json-stable-stringify on JSON data', () => {
  it('write the same bytes exactly when the two key orders agree', () => {
    let differed = 0
    fc.assert(
      fc.property(json, (v) => {
        const same = canonicalStringify(v) === stableStringify(v)
        if (!same) differed++
        expect(same).toBe(ordersAgree(v))
      }),
      { numRuns: 2000 },
    )
    // The generator reaches the case where they differ, so the property says something both ways.
    expect(differed).toBeGreaterThan(0)
  })

  it('always write the same data', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(JSON.parse(stableStringify(v))).toStrictEqual(JSON.parse(canonicalStringify(v)))
      }),
      { numRuns: 1000 },
    )
  })

  it('key equal values equally: one form is equal for two values exactly when the other is', () => {
    const pair = fc.oneof(
      json.map((a) => [a, reordered(a)] as const),
      fc.tuple(json, json),
    )
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(stableStringify(a) === stableStringify(b)).toBe(
          canonicalStringify(a) === canonicalStringify(b),
        )
      }),
      { numRuns: 2000 },
    )
  })

  it('differ on an astral key against a key in U+E000–U+FFFF, the case that keeps AgentCase files ours', () => {
    const v = { '😀': 1, '\uFFEE': 2 }
    expect(canonicalStringify(v)).toBe('{"\uFFEE":2,"😀":1}')
    expect(stableStringify(v)).toBe('{"😀":1,"\uFFEE":2}')
  })

  it('differ from JSON.stringify of a key-sorted copy on integer-like keys, the form the request hash uses', () => {
    // A JS object lists integer-like keys first, in numeric order, whatever order they were added in.
    const sortedCopy = Object.fromEntries(
      Object.entries({ b: 1, '10': 2, '9': 3 }).sort(([x], [y]) => (x < y ? -1 : 1)),
    )
    expect(JSON.stringify(sortedCopy)).toBe('{"9":3,"10":2,"b":1}')
    expect(stableStringify(sortedCopy)).toBe('{"10":2,"9":3,"b":1}')
    expect(canonicalStringify(sortedCopy)).toBe('{"10":2,"9":3,"b":1}')
  })
})

describe('where the library and canonicalStringify part ways: values JSON cannot carry', () => {
  const cases: Array<[string, () => unknown, string | undefined, 'throws' | string]> = [
    // [what, value, the library's output, ours ('throws' or the text)]
    ['NaN', () => ({ a: Number.NaN }), '{"a":null}', 'throws'],
    ['Infinity', () => [Number.POSITIVE_INFINITY], '[null]', 'throws'],
    ['a function property', () => ({ a: 1, f: () => 1 }), '{"a":1}', 'throws'],
    ['a Date (toJSON)', () => ({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}', '{"at":{}}'],
    ['undefined at the top', () => undefined, undefined, 'throws'],
    ['-0', () => ({ z: -0 }), '{"z":0}', '{"z":0}'],
    [
      'undefined in an array and as a property',
      () => ({ a: [undefined], b: undefined }),
      '{"a":[null]}',
      '{"a":[null]}',
    ],
  ]

  it.each(cases)('%s', (_, make, library, ours) => {
    expect(stableStringify(make())).toBe(library)
    if (ours === 'throws') expect(() => canonicalStringify(make())).toThrow(TypeError)
    else expect(canonicalStringify(make())).toBe(ours)
  })

  it('both refuse a cycle and a bigint', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    for (const v of [cyclic, { n: 10n }]) {
      expect(() => stableStringify(v)).toThrow(TypeError)
      expect(() => canonicalStringify(v)).toThrow(TypeError)
    }
  })
})
