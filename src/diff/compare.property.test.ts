import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../case/schema/json.ts'
import { compare } from './compare.ts'
import type { Difference, DiffMode } from './difference.ts'

const MODES: DiffMode[] = ['exact', 'structural', 'normalized']

/** `JSON.parse(JSON.stringify(x))`: what a value is once written, e.g. `-0` becomes `0`. */
const asJson = (x: JsonValue): JsonValue => JSON.parse(JSON.stringify(x))

/**
 * Values from a tiny domain, so that two independent draws are often equal or almost equal: random
 * large values would nearly always differ at the root and test little.
 */
const small: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<JsonValue>(0, 1, 1.5, 'a', 'a ', '', true, false, null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'x-y', "it's", 'a\\b', '', '0', 'é'), tie('v'), { maxKeys: 3 }),
  ),
})).v

/** The same value with every object's keys in reverse insertion order. */
function reorder(x: JsonValue): JsonValue {
  if (Array.isArray(x)) return x.map(reorder)
  if (x === null || typeof x !== 'object') return x
  const out: Record<string, JsonValue> = {}
  for (const k of Object.keys(x).reverse()) {
    Object.defineProperty(out, k, {
      value: reorder(x[k]!),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

const KIND_SWAP: Record<Difference['kind'], Difference['kind']> = {
  missing_key: 'unexpected_key',
  unexpected_key: 'missing_key',
  value_mismatch: 'value_mismatch',
  type_mismatch: 'type_mismatch',
  length_mismatch: 'length_mismatch',
}

function swapped(d: Difference): Difference {
  const out: Difference = { path: d.path, kind: KIND_SWAP[d.kind] }
  if (d.actual !== undefined) out.expected = d.actual
  if (d.expected !== undefined) out.actual = d.expected
  return out
}

const key = (d: Difference) => `${d.path}\u0000${d.kind}`
const sorted = (ds: Difference[]) => [...ds].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0))

describe('compare: properties', () => {
  it('compare(x, x) and compare(x, reordered copy of x) are equal in every mode', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...MODES), (x, mode) => {
        expect(compare(x, x, { mode }).equal).toBe(true)
        expect(compare(x, reorder(structuredClone(x) as JsonValue), { mode })).toStrictEqual({
          equal: true,
          differences: [],
        })
      }),
    )
  })

  it('in exact mode, equal === isDeepStrictEqual for JSON values (key order never counts)', () => {
    const pair = fc.oneof(
      fc.tuple(small, small),
      fc.tuple(fc.jsonValue() as fc.Arbitrary<JsonValue>, fc.jsonValue() as fc.Arbitrary<JsonValue>),
      fc.jsonValue().map((x) => [x, reorder(x as JsonValue)] as [JsonValue, JsonValue]),
    )
    let equalSeen = 0
    fc.assert(
      fc.property(pair, ([x, y]) => {
        const a = asJson(x)
        const b = asJson(y)
        const result = compare(a, b, { mode: 'exact' })
        expect(result.equal).toBe(isDeepStrictEqual(a, b))
        expect(result.equal).toBe(result.differences.length === 0)
        if (result.equal) equalSeen++
      }),
      { numRuns: 500 },
    )
    // Guards the generator: a property that only ever saw unequal pairs would prove half of nothing.
    expect(equalSeen).toBeGreaterThan(20)
  })

  it('swapping a and b swaps missing/unexpected and expected/actual, in every mode', () => {
    fc.assert(
      fc.property(small, small, fc.constantFrom(...MODES), (a, b, mode) => {
        const forward = compare(a, b, { mode }).differences.map(swapped)
        const backward = compare(b, a, { mode }).differences
        expect(sorted(backward)).toStrictEqual(sorted(forward))
      }),
      { numRuns: 500 },
    )
  })

  it('every reported path is a valid ignore pattern that removes that difference', () => {
    fc.assert(
      fc.property(small, small, fc.constantFrom(...MODES), (a, b, mode) => {
        const { differences } = compare(a, b, { mode })
        expect(compare(a, b, { mode, ignoredPaths: differences.map((d) => d.path) }).equal).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it('structural equality is implied by exact and by normalized equality', () => {
    fc.assert(
      fc.property(small, small, (a, b) => {
        if (compare(a, b, { mode: 'exact' }).equal)
          expect(compare(a, b, { mode: 'normalized' }).equal).toBe(true)
        if (compare(a, b, { mode: 'normalized' }).equal)
          expect(compare(a, b, { mode: 'structural' }).equal).toBe(true)
      }),
      { numRuns: 500 },
    )
  })
})
