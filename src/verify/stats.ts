import type { ArmStats, TrialOutcome } from '../case/schema/run.ts'

/** The normal quantile of a two-sided 95 % interval. @example wilson(9, 10, Z95) */
export const Z95 = 1.959963984540054

/**
 * The Wilson score interval of a pass rate: `passed` successes out of `n` trials. Unlike the normal
 * approximation it stays inside [0, 1] and is honest at 0/n and n/n, which is where small verifications
 * live. With no trial it is [0, 1]: nothing is known.
 *
 * @example
 * wilson(10, 10) // { lower: 0.722…, upper: 1 }
 * wilson(0, 10)  // { lower: 0, upper: 0.277… }
 */
export function wilson(passed: number, n: number, z: number = Z95): { lower: number; upper: number } {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(passed) || passed < 0 || passed > n) {
    throw new RangeError(`wilson: need integers 0 <= passed <= n; got passed=${passed}, n=${n}`)
  }
  if (n === 0) return { lower: 0, upper: 1 }
  const p = passed / n
  const z2 = z * z
  const denominator = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denominator
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator
  // At 0/n and n/n the bound is exactly 0 or 1; say so rather than 1e-17.
  return {
    lower: passed === 0 ? 0 : Math.max(0, centre - half),
    upper: passed === n ? 1 : Math.min(1, centre + half),
  }
}

/**
 * pass^k: the chance that k independent trials all pass, estimated without bias from `passed` of `n`
 * usable trials as C(passed, k) / C(n, k) (the estimator of τ-bench). Null when n < k. It falls much
 * faster than the pass rate: 9 of 10 is a 0.9 pass rate but pass^5 = 0.5.
 *
 * @example
 * passHatK(9, 10, 5) // 0.5
 * passHatK(10, 10, 10) // 1
 */
export function passHatK(passed: number, n: number, k: number): number | null {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`passHatK: k must be a positive integer; got ${k}`)
  if (n < k) return null
  if (passed < k) return 0
  let ratio = 1
  for (let i = 0; i < k; i++) ratio *= (passed - i) / (n - i)
  return ratio
}

/**
 * The statistics of one arm (patched or control) from its trial outcomes. Errored trials are counted
 * but left out of the rate: a 429 says nothing about the fix.
 *
 * @example
 * armStats(['pass', 'pass', 'fail', 'errored'], 3) // { trials: 4, passed: 2, failed: 1, errored: 1, passRate: 0.667, … }
 */
export function armStats(outcomes: readonly TrialOutcome[], k: number): ArmStats {
  let passed = 0
  let failed = 0
  let errored = 0
  for (const outcome of outcomes) {
    if (outcome === 'pass') passed++
    else if (outcome === 'fail') failed++
    else errored++
  }
  const usable = passed + failed
  const { lower, upper } = wilson(passed, usable)
  return {
    trials: outcomes.length,
    passed,
    failed,
    errored,
    passRate: usable === 0 ? null : passed / usable,
    lower,
    upper,
    passHatK: passHatK(passed, usable, k),
  }
}
