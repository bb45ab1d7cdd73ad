import { describe, expect, it } from 'vitest'
import { isCrashlabError } from '../errors.ts'
import { compare } from './compare.ts'
import type { CompareOptions, Difference } from './difference.ts'

type Row = [name: string, a: unknown, b: unknown, options: CompareOptions, expected: Difference[]]

const exact: CompareOptions = { mode: 'exact' }
const structural: CompareOptions = { mode: 'structural' }
const normalized: CompareOptions = { mode: 'normalized' }

describe('compare: every kind in every mode', () => {
  const rows: Row[] = [
    ['equal scalars', 1, 1, exact, []],
    [
      'value_mismatch at the root',
      1,
      2,
      exact,
      [{ path: '$', kind: 'value_mismatch', expected: 1, actual: 2 }],
    ],
    [
      'type_mismatch number/string',
      1,
      '1',
      exact,
      [{ path: '$', kind: 'type_mismatch', expected: 1, actual: '1' }],
    ],
    [
      'type_mismatch null/object',
      null,
      {},
      exact,
      [{ path: '$', kind: 'type_mismatch', expected: null, actual: {} }],
    ],
    [
      'type_mismatch array/object',
      [],
      {},
      exact,
      [{ path: '$', kind: 'type_mismatch', expected: [], actual: {} }],
    ],
    ['integer and float are both numbers', 1, 1.5, structural, []],
    [
      'missing_key: in expected only',
      { a: 1, b: 2 },
      { a: 1 },
      exact,
      [{ path: '$.b', kind: 'missing_key', expected: 2 }],
    ],
    [
      'unexpected_key: in actual only',
      { a: 1 },
      { a: 1, c: [3] },
      exact,
      [{ path: '$.c', kind: 'unexpected_key', actual: [3] }],
    ],
    [
      'length_mismatch, then the common prefix',
      { xs: [1, 2, 3] },
      { xs: [1, 9] },
      exact,
      [
        { path: '$.xs', kind: 'length_mismatch', expected: 3, actual: 2 },
        { path: '$.xs[1]', kind: 'value_mismatch', expected: 2, actual: 9 },
      ],
    ],
    [
      'nested path',
      { events: [{}, { payload: { arguments: { amount: 49 } } }] },
      { events: [{}, { payload: { arguments: { amount: 490 } } }] },
      exact,
      [{ path: '$.events[1].payload.arguments.amount', kind: 'value_mismatch', expected: 49, actual: 490 }],
    ],
    [
      "odd keys use ['key']",
      { 'x-id': 1 },
      { 'x-id': 2 },
      exact,
      [{ path: "$['x-id']", kind: 'value_mismatch', expected: 1, actual: 2 }],
    ],
    [
      'structural ignores scalar values',
      { a: 'x', b: [1, true, null] },
      { a: 'y', b: [2, false, null] },
      structural,
      [],
    ],
    [
      'structural keeps types',
      { a: 'x' },
      { a: 1 },
      structural,
      [{ path: '$.a', kind: 'type_mismatch', expected: 'x', actual: 1 }],
    ],
    [
      'structural keeps keys',
      { a: 1 },
      { b: 1 },
      structural,
      [
        { path: '$.a', kind: 'missing_key', expected: 1 },
        { path: '$.b', kind: 'unexpected_key', actual: 1 },
      ],
    ],
    [
      'structural keeps lengths',
      [1],
      [1, 2],
      structural,
      [{ path: '$', kind: 'length_mismatch', expected: 1, actual: 2 }],
    ],
    ['normalized: CRLF is LF', 'a\r\nb', 'a\nb', normalized, []],
    ['normalized: lone CR is LF', 'a\rb', 'a\nb', normalized, []],
    ['normalized: trimmed', '  a b \n', 'a b', normalized, []],
    [
      'normalized: inner spaces count',
      'a  b',
      'a b',
      normalized,
      [{ path: '$', kind: 'value_mismatch', expected: 'a  b', actual: 'a b' }],
    ],
    [
      'exact: CRLF differs',
      'a\r\n',
      'a\n',
      exact,
      [{ path: '$', kind: 'value_mismatch', expected: 'a\r\n', actual: 'a\n' }],
    ],
    ['normalized: float within tolerance', 0.1 + 0.2, 0.3, normalized, []],
    [
      'exact: float rounding differs',
      0.1 + 0.2,
      0.3,
      exact,
      [{ path: '$', kind: 'value_mismatch', expected: 0.1 + 0.2, actual: 0.3 }],
    ],
    [
      'normalized: float beyond tolerance',
      0.3,
      0.3001,
      normalized,
      [{ path: '$', kind: 'value_mismatch', expected: 0.3, actual: 0.3001 }],
    ],
    ['normalized: custom tolerance', 0.3, 0.3001, { mode: 'normalized', floatTolerance: 1e-3 }, []],
    [
      'normalized: integers are exact',
      1000000000123,
      1000000000124,
      normalized,
      [{ path: '$', kind: 'value_mismatch', expected: 1000000000123, actual: 1000000000124 }],
    ],
    [
      'normalized: booleans stay exact',
      true,
      false,
      normalized,
      [{ path: '$', kind: 'value_mismatch', expected: true, actual: false }],
    ],
    [
      'normalized: types still count',
      '1',
      1,
      normalized,
      [{ path: '$', kind: 'type_mismatch', expected: '1', actual: 1 }],
    ],
    ['-0 and 0 are the same JSON number', -0, 0, exact, []],
  ]
  it.each(rows)('%s', (_name, a, b, options, expected) => {
    const result = compare(a, b, options)
    expect(result.differences).toStrictEqual(expected)
    expect(result.equal).toBe(expected.length === 0)
  })

  it('is exact by default', () => {
    expect(compare('a ', 'a').equal).toBe(false)
  })
})

describe('compare: order', () => {
  it('ignores key order at every level', () => {
    const a = { x: 1, y: { p: [1, { m: 1, n: 2 }], q: 2 } }
    const b = { y: { q: 2, p: [1, { n: 2, m: 1 }] }, x: 1 }
    expect(compare(a, b)).toStrictEqual({ equal: true, differences: [] })
  })

  it('reports the same differences whatever the key order', () => {
    const a = { b: 1, a: 1, c: 1 }
    expect(compare(a, { c: 2, z: 0, a: 2 }).differences).toStrictEqual(
      compare({ c: 1, a: 1, b: 1 }, { a: 2, z: 0, c: 2 }).differences,
    )
    expect(compare(a, { c: 2, z: 0, a: 2 }).differences.map((d) => d.path)).toEqual([
      '$.b',
      '$.z',
      '$.a',
      '$.c',
    ])
  })

  it('always counts array order', () => {
    expect(compare([1, 2], [2, 1]).differences).toStrictEqual([
      { path: '$[0]', kind: 'value_mismatch', expected: 1, actual: 2 },
      { path: '$[1]', kind: 'value_mismatch', expected: 2, actual: 1 },
    ])
    expect(compare([1, 2], [2, 1], structural).equal).toBe(true)
  })
})

describe('compare: ignoredPaths', () => {
  const a = { id: 'a', events: [{ event_id: 'x', payload: { event_id: 1 } }], headers: { 'x-id': 1 } }
  const b = { id: 'b', events: [{ event_id: 'y', payload: { event_id: 2 } }], headers: { 'x-id': 2 } }

  it('drops the named locations only', () => {
    const r = compare(a, b, { ignoredPaths: ['$.id', '$.events[*].event_id', "$.headers['x-id']"] })
    expect(r.differences).toStrictEqual([
      { path: '$.events[0].payload.event_id', kind: 'value_mismatch', expected: 1, actual: 2 },
    ])
  })

  it('supports .* , a fixed index, double quotes and the root', () => {
    expect(compare(a, b, { ignoredPaths: ['$.*'] }).equal).toBe(true)
    expect(compare(a, b, { ignoredPaths: ['$'] }).equal).toBe(true)
    const r = compare(a, b, { ignoredPaths: ['$.id', '$.events[0]', '$.headers["x-id"]'] })
    expect(r.equal).toBe(true)
    expect(compare(a, b, { ignoredPaths: ['$.id', '$.events[1]', '$.headers.*'] }).differences).toHaveLength(
      2,
    )
  })

  it('also drops missing and unexpected keys at an ignored location', () => {
    expect(compare({ a: 1, t: 1 }, { a: 1, u: 1 }, { ignoredPaths: ['$.t', '$.u'] }).equal).toBe(true)
    expect(compare({ a: 1, t: 1 }, { a: 1 }, { ignoredPaths: ['$.u'] }).equal).toBe(false)
  })

  it('rejects a malformed pattern with E_DIFF_OPTIONS and says what patterns look like', () => {
    for (const bad of ['events[*]', '$.events[*', '$..x', "$['x]", '$[-1]', '$ .a']) {
      let caught: unknown
      try {
        compare(1, 1, { ignoredPaths: [bad] })
      } catch (err) {
        caught = err
      }
      expect(isCrashlabError(caught, 'E_DIFF_OPTIONS'), bad).toBe(true)
      expect((caught as Error).message).toContain(JSON.stringify(bad))
      expect((caught as Error).message).toContain('$.events[*].event_id')
    }
  })
})

describe('compare: options', () => {
  it('rejects a negative or NaN tolerance with a clear error', () => {
    for (const floatTolerance of [-1e-9, Number.NaN]) {
      expect(() => compare(1, 1, { mode: 'normalized', floatTolerance })).toThrow(
        /floatTolerance must be a number ≥ 0/,
      )
      try {
        compare(1, 1, { floatTolerance })
      } catch (err) {
        expect(isCrashlabError(err, 'E_DIFF_OPTIONS')).toBe(true)
      }
    }
    expect(compare(1, 1, { floatTolerance: 0 }).equal).toBe(true)
  })

  it('rejects an unknown mode', () => {
    expect(() => compare(1, 1, { mode: 'fuzzy' as 'exact' })).toThrow(/unknown diff mode "fuzzy"/)
  })

  it('never mutates its inputs', () => {
    const a = { b: [3, 1, 2], a: ' x\r\n' }
    const b = { a: 'x', b: [1] }
    const before = JSON.stringify([a, b])
    compare(a, b, normalized)
    expect(JSON.stringify([a, b])).toBe(before)
  })
})
