import { describe, expect, it } from 'vitest'
import { compare } from './compare.ts'
import { abbreviate, formatDifferences } from './format-differences.ts'

describe('formatDifferences', () => {
  it('writes one line per difference, path first and kind last', () => {
    const { differences } = compare(
      { events: [{ payload: { arguments: { amount: 49 } } }], gone: { a: 1 }, xs: [1, 2], t: 'x' },
      { events: [{ payload: { arguments: { amount: 490 } } }], extra: 'hi', xs: [1], t: 1 },
    )
    expect(formatDifferences(differences).split('\n')).toEqual([
      '  $.gone: missing, expected {"a":1} (missing_key)',
      '  $.extra: unexpected, got "hi" (unexpected_key)',
      '  $.events[0].payload.arguments.amount: expected 49, got 490 (value_mismatch)',
      '  $.t: expected "x", got 1 (type_mismatch)',
      '  $.xs: expected length 2, got length 1 (length_mismatch)',
    ])
  })

  it('stops at the limit and counts the rest', () => {
    const { differences } = compare([1, 2, 3, 4, 5], [0, 0, 0, 0, 0])
    const lines = formatDifferences(differences, { limit: 2 }).split('\n')
    expect(lines).toEqual([
      '  $[0]: expected 1, got 0 (value_mismatch)',
      '  $[1]: expected 2, got 0 (value_mismatch)',
      '  … and 3 more',
    ])
    expect(formatDifferences([])).toBe('')
  })

  it('abbreviates long values', () => {
    const long = 'word '.repeat(100)
    const [line] = formatDifferences(compare({ a: long }, { a: 'short' }).differences, {
      maxValueLength: 20,
    }).split('\n')
    expect(line).toBe('  $.a: expected "word word word wor…, got "short" (value_mismatch)')
    expect(abbreviate('x'.repeat(200), 10)).toBe('"xxxxxxxx…')
    expect(abbreviate(undefined)).toBe('nothing')
  })
})
