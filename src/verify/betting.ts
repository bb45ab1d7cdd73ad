/**
 * Testing by betting: the e-process behind the sequential verdicts of `verify` (docs/verify.md). A
 * gambler starts with wealth 1 and, before each observation y (a number in [lower, upper], lower < 0),
 * stakes a fraction λ ≥ 0 of it on y being positive: wealth ← wealth · (1 + λ·y). When the null
 * hypothesis says E[y | the past] ≤ 0, no stake chosen from the past can make money on average, so the
 * wealth is a non-negative supermartingale and, by Ville's inequality, it ever reaches 1/α with
 * probability at most α, however long the trials go on and whenever one stops looking. That is what
 * keeps the error rates of the verdicts under optional stopping (Shafer and Vovk; Ramdas, Grünwald,
 * Vovk and Shafer 2023; Waudby-Smith and Ramdas 2024).
 */

/** The largest share of the wealth one observation may put at risk: a stake never ruins the gambler. */
const MAX_RISK = 0.9
/** Pseudo-observations at `hope` that seed the stakes, before any real observation. */
const PRIOR_WEIGHT = 3

/**
 * How a bet is set up: the least value an observation can take (its loss, per unit staked) and the
 * value the gambler hopes for, which seeds the first stakes.
 *
 * @example
 * const onDifferences: BetOptions = { lower: -1, hope: 1 }
 */
export interface BetOptions {
  /** The least value an observation can take; negative. */
  lower: number
  /** The value the first stakes are sized for (3 pseudo-observations of it). */
  hope: number
}

/**
 * Where a bet stands: the wealth now, its highest point, after how many observations it first reached
 * `threshold` (null if never), and the running sums the next stake is sized from.
 *
 * @example
 * const state: BetState = bet([1, 1, 0, 1], { lower: -1, hope: 1 }, 20)
 */
export interface BetState {
  wealth: number
  peak: number
  crossedAt: number | null
  n: number
  sum: number
  sumSquares: number
}

/**
 * The stake of the next observation: the growth-optimal fraction for the observations so far, in the
 * approximation mean / second moment (aGRAPA, Waudby-Smith and Ramdas 2024), with the pseudo-observations
 * of `hope`, and never more than MAX_RISK of the wealth at the worst outcome. It depends on the past
 * only: the wealth stays a supermartingale under the null.
 */
function stake(sum: number, sumSquares: number, options: BetOptions): number {
  const prior = PRIOR_WEIGHT * options.hope
  const lambda = (sum + prior) / (sumSquares + prior * options.hope)
  return Math.min(Math.max(lambda, 0), MAX_RISK / -options.lower)
}

/**
 * Bets on a sequence of observations (each in [options.lower, 1 + |lower|]) against the null that their
 * mean is at most 0. Pure: the same observations give the same state.
 *
 * @example
 * bet([1, 1, 1, 1, 1], { lower: -1, hope: 1 }, 20).crossedAt // 5: five wins in a row reach 1/α = 20
 * bet([1, -1, 0, 1, -1], { lower: -1, hope: 1 }, 20).crossedAt // null
 */
export function bet(ys: readonly number[], options: BetOptions, threshold: number): BetState {
  const state: BetState = { wealth: 1, peak: 1, crossedAt: null, n: 0, sum: 0, sumSquares: 0 }
  for (const y of ys) step(state, y, options, threshold)
  return state
}

/**
 * Whether the wealth could still reach `threshold` within `remaining` more observations, each the best
 * one (`best`): false means no run of luck can decide the bet before the budget runs out.
 *
 * @example
 * reachable(bet([1, -1, -1], { lower: -1, hope: 1 }, 20), 2, 1, { lower: -1, hope: 1 }, 20) // false
 */
export function reachable(
  state: BetState,
  remaining: number,
  best: number,
  options: BetOptions,
  threshold: number,
): boolean {
  if (state.crossedAt !== null) return true
  const copy = { ...state }
  for (let i = 0; i < remaining && copy.crossedAt === null; i++) step(copy, best, options, threshold)
  return copy.crossedAt !== null
}

function step(state: BetState, y: number, options: BetOptions, threshold: number): void {
  const lambda = stake(state.sum, state.sumSquares, options)
  state.wealth *= 1 + lambda * y
  state.n++
  state.sum += y
  state.sumSquares += y * y
  if (state.wealth > state.peak) state.peak = state.wealth
  // A hair of tolerance: 1.9^5 and friends should not miss 1/α by a rounding error.
  if (state.crossedAt === null && state.wealth >= threshold * (1 - 1e-12)) state.crossedAt = state.n
}
