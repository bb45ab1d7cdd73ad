import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalStringify, compareCodePoints } from './canonical-json.ts'

/** A deep copy whose objects list their keys in code-point order (JSON.stringify keeps insertion order). */
function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep)
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v).sort(compareCodePoints))
      out[k] = sortDeep((v as Record<string, unknown>)[k])
    return out
  }
  return v
}

// Integer-like keys are listed first by every JS object whatever their insertion order, so the
// JSON.stringify oracle cannot express their sorted order; they get their own test below.
const plainKey = fc.string({ unit: 'grapheme', maxLength: 8 }).filter((k) => !/^(0|[1-9]\d*)$/.test(k))
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.string({ unit: 'grapheme' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(plainKey, tie('value'), { maxKeys: 5 }),
  ),
})).value

describe('canonicalStringify', () => {
  it.each([0, 2])(
    'writes what JSON.stringify writes for the same data with sorted keys (indent %i)',
    (indent) => {
      fc.assert(
        fc.property(json, (v) => {
          expect(canonicalStringify(v, { indent })).toBe(
            JSON.stringify(sortDeep(v), null, indent || undefined),
          )
        }),
        { numRuns: 400 },
      )
    },
  )

  it('gives the same bytes whatever the key insertion order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer(), { maxKeys: 8 }), (d) => {
        const reversed = Object.fromEntries(Object.entries(d).reverse())
        expect(canonicalStringify(reversed)).toBe(canonicalStringify(d))
      }),
    )
  })

  it('sorts keys by code point, not UTF-16 unit: astral characters come after U+E000–U+FFFF', () => {
    const v = { '\u{1F600}': 1, '\uE000': 2, b: 3, '10': 4, '2': 5, a: 6 }
    expect(canonicalStringify(v)).toBe('{"10":4,"2":5,"a":6,"b":3,"\uE000":2,"\u{1F600}":1}')
    expect(compareCodePoints('\u{1F600}', '\uFFFF')).toBeGreaterThan(0)
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0)
    expect(compareCodePoints('a', 'a')).toBe(0)
  })

  it('drops undefined properties, writes undefined array items as null, and -0 as 0', () => {
    expect(canonicalStringify({ a: undefined, b: [undefined, -0], c: { d: undefined } })).toBe(
      '{"b":[null,0],"c":{}}',
    )
  })

  it('refuses what JSON cannot carry, naming where', () => {
    expect(() => canonicalStringify({ a: [1, { b: Number.NaN }] })).toThrow('NaN (at $.a[1].b)')
    expect(() => canonicalStringify({ n: 10n })).toThrow('bigint (at $.n)')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => canonicalStringify(cyclic)).toThrow('cycle (at $.self)')
    // deep down too, where the compact writer starts looking for cycles
    let deep: Record<string, unknown> = {}
    const top = deep
    for (let i = 0; i < 40; i++) deep = deep.next = {}
    deep.back = top
    expect(() => canonicalStringify(top)).toThrow(/cycle \(at \$(\.next){40}\.back\)/)
    // the same object twice is not a cycle, shallow or deep
    let chain: Record<string, unknown> = {}
    const head = chain
    for (let i = 0; i < 40; i++) chain = chain.next = {}
    const leaf = { x: 1 }
    chain.a = leaf
    chain.b = leaf
    expect(canonicalStringify(head)).toContain('{"a":{"x":1},"b":{"x":1}}')
    const shared = { x: 1 }
    expect(canonicalStringify({ a: shared, b: shared }, { indent: 2 })).toBe(
      '{\n  "a": {\n    "x": 1\n  },\n  "b": {\n    "x": 1\n  }\n}',
    )
  })
})
