import { describe, expect, it } from 'vitest'
import { formatUsd } from './format-usd.ts'

describe('formatUsd', () => {
  it.each([
    [0, '$0'],
    [12.345, '$12.35'],
    [1, '$1.00'],
    [1234.5, '$1234.50'],
    [0.5, '$0.50'],
    [0.01, '$0.01'],
    [0.012345, '$0.0123'],
    [0.0035, '$0.0035'],
    [0.00000125, '$0.00000125'],
    [0.9996, '$1.00'],
    [0.123456, '$0.123'],
    [-0.25, '-$0.25'],
    [1e-19, '$1.00e-19'],
  ])('writes %s as %s', (usd, text) => {
    expect(formatUsd(usd)).toBe(text)
  })

  it('never writes a cheap step as $0.00', () => {
    for (let usd = 1e-12; usd < 1; usd *= 7) expect(formatUsd(usd)).not.toMatch(/^\$0\.0*$/)
  })
})
