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

  it('abbreviates long values, and shows a long change around the place where the two sides part', () => {
    const long = 'word '.repeat(100)
    const [missing] = formatDifferences(compare({ a: long }, {}).differences, { maxValueLength: 20 }).split(
      '\n',
    )
    expect(missing).toBe('  $.a: missing, expected "word word word wor… (missing_key)')
    const [line] = formatDifferences(compare({ a: long }, { a: 'short' }).differences, {
      maxValueLength: 20,
    }).split('\n')
    expect(line).toBe(
      '  $.a: at character 0 of 500 → 5: expected "word word word word word word word word …", got "short" (value_mismatch)',
    )
    // A long prompt changed at its end: the change is in the line, with its offset.
    const prompt = `${'You are the refund assistant of a small shop. '.repeat(8)}Answer in English.`
    const [end] = formatDifferences(
      compare({ system: prompt }, { system: prompt.replace('English', 'French') }).differences,
    ).split('\n')
    expect(end).toContain(`at character ${prompt.length - 8} of ${prompt.length}`)
    expect(end).toContain('Answer in English.", got "')
    expect(end).toContain('Answer in French."')
    expect(abbreviate('x'.repeat(200), 10)).toBe('"xxxxxxxx…')
    expect(abbreviate(undefined)).toBe('nothing')
  })
})
