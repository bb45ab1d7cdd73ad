import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TrialOutcome } from '../case/schema/run.ts'
import { armStats, decideVerdict, minUsable, passHatK, wilson } from './stats.ts'

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

describe('decideVerdict', () => {
  const k = 10
  const arm = (passed: number, failed: number, errored = 0) =>
    armStats([...times(passed, 'pass'), ...times(failed, 'fail'), ...times(errored, 'errored')], k)

  it('VERIFIED when the patched lower bound clears the control upper bound', () => {
    expect(decideVerdict({ k, patched: arm(9, 1), control: arm(1, 9), regressed: [] }).verdict).toBe(
      'VERIFIED',
    )
  })
  it('VERIFIED when every control failed and every patched trial passed, even with few trials', () => {
    expect(
      decideVerdict({
        k: 2,
        patched: armStats(times(2, 'pass'), 2),
        control: armStats(times(2, 'fail'), 2),
        regressed: [],
      }).verdict,
    ).toBe('VERIFIED')
  })
  it('LIKELY when better but the intervals overlap', () => {
    const v = decideVerdict({ k, patched: arm(6, 4), control: arm(3, 7), regressed: [] })
    expect(v.verdict).toBe('LIKELY')
    expect(v.reason).toContain('-k')
  })
  it('REJECTED when no better than the control, or when a past good run broke (whatever the arms say)', () => {
    expect(decideVerdict({ k, patched: arm(3, 7), control: arm(3, 7), regressed: [] }).verdict).toBe(
      'REJECTED',
    )
    const broke = decideVerdict({
      k,
      patched: arm(10, 0),
      control: arm(0, 10),
      regressed: ['01J0000000000000000000000A'],
    })
    expect(broke).toEqual({
      verdict: 'REJECTED',
      reason: expect.stringContaining('01J0000000000000000000000A'),
    })
  })
  it('INCONCLUSIVE with too few usable trials in either arm: errors never count as failures', () => {
    expect(minUsable(10)).toBe(5)
    expect(decideVerdict({ k, patched: arm(4, 0, 6), control: arm(0, 10), regressed: [] }).verdict).toBe(
      'INCONCLUSIVE',
    )
    expect(decideVerdict({ k, patched: arm(10, 0), control: arm(0, 2, 8), regressed: [] }).verdict).toBe(
      'INCONCLUSIVE',
    )
  })
  it('without controls: the lower bound must clear one half', () => {
    expect(decideVerdict({ k, patched: arm(10, 0), control: null, regressed: [] }).verdict).toBe('VERIFIED')
    expect(decideVerdict({ k, patched: arm(6, 4), control: null, regressed: [] }).verdict).toBe('LIKELY')
    expect(decideVerdict({ k, patched: arm(3, 7), control: null, regressed: [] }).verdict).toBe(
      'INCONCLUSIVE',
    )
    expect(decideVerdict({ k, patched: arm(0, 10), control: null, regressed: [] }).verdict).toBe('REJECTED')
  })
})
