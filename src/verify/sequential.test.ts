import { describe, expect, it } from 'vitest'
import type { TrialOutcome } from '../case/schema/run.ts'
import { createRng } from '../testing/create-rng.ts'
import { bet, reachable } from './betting.ts'
import { type Scenario, simulateSequential } from './internal/simulate-verification.ts'
import { decideSequential } from './sequential.ts'

const times = (n: number, o: TrialOutcome): TrialOutcome[] => Array.from({ length: n }, () => o)
const DIFF = { lower: -1, hope: 1 }

describe('bet', () => {
  it('five wins in a row reach 1/α = 20; four do not; a loss costs most of the stake', () => {
    expect(bet([1, 1, 1, 1], DIFF, 20).crossedAt).toBeNull()
    expect(bet([1, 1, 1, 1, 1], DIFF, 20).crossedAt).toBe(5)
    // Ties (0) neither win nor lose.
    expect(bet([1, 0, 1, 0, 1, 1, 0, 1], DIFF, 20).crossedAt).toBe(8)
    expect(bet([-1], DIFF, 20).wealth).toBeCloseTo(0.1, 12)
  })

  it('reachable: whether the best luck could still cross within the budget left', () => {
    const behind = bet([1, -1, -1], DIFF, 20)
    expect(reachable(behind, 2, 1, DIFF, 20)).toBe(false)
    expect(reachable(behind, 30, 1, DIFF, 20)).toBe(true)
  })

  it('keeps its error rate under optional stopping: a fair game reaches 20 in at most 5 % of 4,000 seeds, looked at after every one of 500 draws', () => {
    let crossed = 0
    for (let seed = 0; seed < 4000; seed++) {
      const rng = createRng(seed)
      const ys = Array.from({ length: 500 }, () => (rng.chance(0.5) ? 1 : -1))
      if (bet(ys, DIFF, 20).crossedAt !== null) crossed++
    }
    expect(crossed / 4000).toBeLessThanOrEqual(0.05)
  })
})

describe('decideSequential', () => {
  const k = 20
  it('VERIFIED once the pairs decide, and says how soon; open before that', () => {
    const four = decideSequential({ k, patched: times(4, 'pass'), control: times(4, 'fail'), goodRuns: [] })
    expect(four).toMatchObject({ verdict: 'LIKELY', done: false, armsOpen: true })
    const five = decideSequential({ k, patched: times(5, 'pass'), control: times(5, 'fail'), goodRuns: [] })
    expect(five).toMatchObject({ verdict: 'VERIFIED', done: true, decided: true })
    expect(five.reason).toContain('after 5 pairs')
  })

  it('REJECTED early when the patch is clearly worse; at the budget, by the rates', () => {
    expect(
      decideSequential({ k, patched: times(6, 'fail'), control: times(6, 'pass'), goodRuns: [] }),
    ).toMatchObject({ verdict: 'REJECTED', done: true, decided: true })
    const tied = ['pass', 'fail', 'fail'] as TrialOutcome[]
    expect(decideSequential({ k: 3, patched: tied, control: tied, goodRuns: [] })).toMatchObject({
      verdict: 'REJECTED',
      done: true,
      decided: false,
    })
    expect(
      decideSequential({ k: 3, patched: times(3, 'pass'), control: times(3, 'fail'), goodRuns: [] }),
    ).toMatchObject({ verdict: 'LIKELY', done: true, decided: false })
  })

  it('at the budget, ahead by too little to tell (the bet never got halfway to 1/α) is INCONCLUSIVE, not LIKELY', () => {
    const patched: TrialOutcome[] = [
      'pass',
      'fail',
      'fail',
      'pass',
      'fail',
      'pass',
      'fail',
      'fail',
      'pass',
      'fail',
    ]
    const control: TrialOutcome[] = [
      'fail',
      'pass',
      'fail',
      'fail',
      'fail',
      'pass',
      'fail',
      'pass',
      'fail',
      'fail',
    ]
    const d = decideSequential({ k: 10, patched, control, goodRuns: [] })
    expect(d).toMatchObject({ verdict: 'INCONCLUSIVE', done: true, decided: false })
    expect(d.evidence).toBeLessThan(Math.sqrt(20))
  })

  it('stops an arm that cannot reach VERIFIED within the budget', () => {
    const d = decideSequential({
      k: 6,
      patched: ['pass', 'fail', 'fail', 'pass'],
      control: ['fail', 'pass', 'pass', 'fail'],
      goodRuns: [],
    })
    expect(d).toMatchObject({ done: true, decided: false, verdict: 'REJECTED' })
  })

  it('INCONCLUSIVE when errors ate an arm: errors never count as failures', () => {
    const d = decideSequential({
      k: 4,
      patched: times(4, 'pass'),
      control: times(4, 'errored'),
      goodRuns: [],
    })
    expect(d).toMatchObject({ verdict: 'INCONCLUSIVE', done: true })
    expect(d.reason).toContain('0 of 4 control trials were usable')
  })

  it('a past good run judged by its own pass rates: one failure with the patch is its flake rate, not a regression', () => {
    const arms = { k, patched: times(5, 'pass'), control: times(5, 'fail') }
    const flaky: TrialOutcome[] = [
      'pass',
      'fail',
      'pass',
      'pass',
      'pass',
      'pass',
      'fail',
      'pass',
      'pass',
      'pass',
    ]
    const withFlake = decideSequential({
      ...arms,
      goodRuns: [{ id: 'g', patched: flaky, unpatched: [...flaky].reverse() }],
    })
    expect(withFlake.verdict).not.toBe('REJECTED')
    const broke = decideSequential({
      ...arms,
      goodRuns: [{ id: 'g', patched: times(5, 'fail'), unpatched: times(5, 'pass') }],
    })
    expect(broke).toMatchObject({ verdict: 'REJECTED', done: true })
    expect(broke.reason).toContain('g (0/5 with the patch, 5/5 without)')
  })

  it('VERIFIED waits for every past good run to be cleared', () => {
    const arms = { k, patched: times(5, 'pass'), control: times(5, 'fail') }
    const early = decideSequential({
      ...arms,
      goodRuns: [{ id: 'g', patched: times(2, 'pass'), unpatched: times(2, 'pass') }],
    })
    expect(early).toMatchObject({ verdict: 'LIKELY', done: false, armsOpen: false, openGoodRuns: ['g'] })
    const cleared = decideSequential({
      ...arms,
      goodRuns: [{ id: 'g', patched: times(5, 'pass'), unpatched: times(5, 'pass') }],
    })
    expect(cleared).toMatchObject({ verdict: 'VERIFIED', done: true })
  })

  it('without controls: against a pass rate of one half', () => {
    expect(decideSequential({ k, patched: times(5, 'pass'), control: null, goodRuns: [] }).verdict).toBe(
      'VERIFIED',
    )
    expect(decideSequential({ k, patched: times(5, 'fail'), control: null, goodRuns: [] })).toMatchObject({
      verdict: 'REJECTED',
      done: true,
    })
  })
})

// The goals of the sequential rule, on simulated Bernoulli arms (counts, not timings): 1,000 seeds each,
// a budget of 20 trials per arm.
describe('the sequential rule on scenarios with a known effect', () => {
  const run = (scenario: Scenario) => simulateSequential(scenario, { seeds: 1000, k: 20 })

  it('a true fix (0.9 against 0) is VERIFIED in at least 95 % of seeds, in far fewer than 20 trials an arm', () => {
    const r = run({ name: 'true fix', patched: 0.9, control: 0, goodRuns: [] })
    expect(r.counts.VERIFIED).toBeGreaterThanOrEqual(950)
    expect(r.meanTrialsPerArm).toBeLessThan(8)
  })

  it('a patch with no effect (0.3 against 0.3) is VERIFIED in at most 5 % of seeds', () => {
    const r = run({ name: 'no effect', patched: 0.3, control: 0.3, goodRuns: [] })
    expect(r.counts.VERIFIED).toBeLessThanOrEqual(50)
    // And LIKELY (ahead, halfway to VERIFIED) in far fewer than the 4 in 10 of the fixed k = 5 rule.
    expect(r.counts.LIKELY).toBeLessThanOrEqual(150)
  })

  it('a fix that breaks a past good run (0.95 → 0.3) is REJECTED in at least 95 % of seeds', () => {
    const r = run({ name: 'regression', patched: 0.9, control: 0, goodRuns: [{ without: 0.95, with: 0.3 }] })
    expect(r.counts.REJECTED).toBeGreaterThanOrEqual(950)
  })

  it('a true fix with a flaky past good run (0.8 with and without) is rarely REJECTED: at most 5 %', () => {
    const r = run({
      name: 'flaky good run',
      patched: 0.9,
      control: 0,
      goodRuns: [{ without: 0.8, with: 0.8 }],
    })
    expect(r.counts.REJECTED).toBeLessThanOrEqual(50)
    expect(r.counts.VERIFIED).toBeGreaterThanOrEqual(800)
  })
})
