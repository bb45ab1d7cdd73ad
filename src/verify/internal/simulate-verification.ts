import type { TrialOutcome, Verdict } from '../../case/schema/run.ts'
import { createRng } from '../../testing/create-rng.ts'
import { decideSequential } from '../sequential.ts'

/**
 * A verification with known pass rates: the patched and control arms of the failing run, and each past
 * good run with the patch and without it. Simulated arms are Bernoulli draws from one seeded generator.
 *
 * @example
 * const trueFix: Scenario = { name: 'a true fix', patched: 0.9, control: 0, goodRuns: [] }
 */
export interface Scenario {
  name: string
  patched: number
  /** Null: no controls. */
  control: number | null
  goodRuns: ReadonlyArray<{ with: number; without: number }>
}

/**
 * What many seeds of a scenario gave: how often each verdict came out, and how many trials it took.
 *
 * @example
 * const { counts, meanTrialsPerArm } = simulateSequential(trueFix, { seeds: 1000, k: 20 })
 */
export interface SimulationResult {
  seeds: number
  counts: Record<Verdict, number>
  /** The mean number of patched trials (the arms run in pairs, so of control trials too). */
  meanTrialsPerArm: number
  /** The mean number of forks in all: both arms and every past good run with and without the patch. */
  meanForks: number
}

/**
 * Runs the sequential rule (`decideSequential`) over simulated arms, seed after seed, the way `verify`
 * runs it: a round takes the next pair of the arms while they are open and the next pair of each open
 * past good run, then the rule is asked again. Deterministic for a seed range.
 *
 * @example
 * simulateSequential({ name: 'no effect', patched: 0.3, control: 0.3, goodRuns: [] }, { seeds: 1000, k: 20 }).counts.VERIFIED
 */
export function simulateSequential(
  scenario: Scenario,
  options: { seeds: number; k: number; firstSeed?: number },
): SimulationResult {
  const counts: Record<Verdict, number> = { VERIFIED: 0, LIKELY: 0, INCONCLUSIVE: 0, REJECTED: 0 }
  let trials = 0
  let forks = 0
  const first = options.firstSeed ?? 0
  for (let seed = first; seed < first + options.seeds; seed++) {
    const rng = createRng(seed)
    const draw = (p: number): TrialOutcome => (rng.chance(p) ? 'pass' : 'fail')
    const patched: TrialOutcome[] = []
    const control: TrialOutcome[] | null = scenario.control === null ? null : []
    const goods = scenario.goodRuns.map((g, i) => ({
      id: `good-${i}`,
      rates: g,
      patched: [] as TrialOutcome[],
      unpatched: [] as TrialOutcome[],
    }))
    const decide = () => decideSequential({ k: options.k, patched, control, goodRuns: goods })
    let decision = decide()
    while (!decision.done) {
      if (decision.armsOpen) {
        patched.push(draw(scenario.patched))
        if (control && scenario.control !== null) control.push(draw(scenario.control))
      }
      for (const g of goods) {
        if (!decision.openGoodRuns.includes(g.id)) continue
        g.patched.push(draw(g.rates.with))
        g.unpatched.push(draw(g.rates.without))
      }
      decision = decide()
    }
    counts[decision.verdict]++
    trials += patched.length
    forks +=
      patched.length +
      (control?.length ?? 0) +
      goods.reduce((n, g) => n + g.patched.length + g.unpatched.length, 0)
  }
  return {
    seeds: options.seeds,
    counts,
    meanTrialsPerArm: trials / options.seeds,
    meanForks: forks / options.seeds,
  }
}
