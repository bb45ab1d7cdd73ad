import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TrialOutcome } from '../case/schema/run.ts'
import { armStats, passHatK, wilson } from './stats.ts'

const times = (n: number, o: TrialOutcome): TrialOutcome[] => Array.from({ length: n }, () => o)

describe('wilson', () => {
  it('matches the published 95 % intervals', () => {
    // Reference values of the Wilson score interval (z = 1.96).
    const nine = wilson(9, 10)
    expect(nine.lower).toBeCloseTo(0.5958, 4)
    expect(nine.upper).toBeCloseTo(0.9821, 4)
    expect(wilson(0, 10)).toEqual({ lower: 0, upper: expect.closeTo(0.2775, 4) })
    expect(wilson(10, 10)).toEqual({ lower: expect.closeTo(0.7225, 4), upper: 1 })
    expect(wilson(5, 10).lower).toBeCloseTo(0.2366, 4)
    expect(wilson(0, 0)).toEqual({ lower: 0, upper: 1 })
  })

  it('always holds the observed rate, inside [0, 1], and narrows as trials grow', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, q) => {
        const passed = Math.round(q * n)
        const { lower, upper } = wilson(passed, n)
        expect(lower).toBeGreaterThanOrEqual(0)
        expect(upper).toBeLessThanOrEqual(1)
        expect(lower).toBeLessThanOrEqual(passed / n + 1e-12)
        expect(upper).toBeGreaterThanOrEqual(passed / n - 1e-12)
        const wider = wilson(passed, n)
        const narrower = wilson(passed * 4, n * 4)
        expect(narrower.upper - narrower.lower).toBeLessThan(wider.upper - wider.lower + 1e-12)
      }),
    )
  })

  it('refuses counts that are not counts', () => {
    expect(() => wilson(11, 10)).toThrow(RangeError)
    expect(() => wilson(1.5, 10)).toThrow(RangeError)
  })
})

describe('passHatK', () => {
  it('is C(passed, k) / C(n, k): falls much faster than the pass rate', () => {
    expect(passHatK(9, 10, 5)).toBeCloseTo(0.5, 12)
    expect(passHatK(10, 10, 10)).toBe(1)
    expect(passHatK(9, 10, 10)).toBe(0)
    expect(passHatK(3, 4, 1)).toBeCloseTo(0.75, 12)
    expect(passHatK(5, 5, 6)).toBeNull()
  })
})

describe('armStats', () => {
  it('counts errored trials apart and leaves them out of the rate', () => {
    const a = armStats(['pass', 'pass', 'fail', 'errored'], 3)
    expect(a).toMatchObject({ trials: 4, passed: 2, failed: 1, errored: 1, passHatK: 0 })
    expect(a.passRate).toBeCloseTo(2 / 3, 12)
    expect(armStats(times(3, 'errored'), 3)).toMatchObject({
      passRate: null,
      lower: 0,
      upper: 1,
      passHatK: null,
    })
  })
})
