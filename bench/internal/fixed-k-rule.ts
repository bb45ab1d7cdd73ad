/**
 * The fixed-k rule `verify` used before the sequential one, kept as the baseline of
 * bench/verify-sequential.bench.ts: k trials per arm, Wilson 95 % intervals, and each past good run
 * re-run once with the patch (one failure is a regression).
 */
import type { Verdict } from '../../src/case/schema/run.ts'
import { wilson } from '../../src/verify/stats.ts'

/** The verdict of k patched trials against k controls and one patched re-run of each good run. */
export function fixedKVerdict(input: {
  k: number
  patched: number
  /** Null: no controls. */
  control: number | null
  /** Whether each past good run's single re-run with the patch passed. */
  goodRunsPassed: readonly boolean[]
}): Verdict {
  const { k, patched, control } = input
  if (input.goodRunsPassed.some((passed) => !passed)) return 'REJECTED'
  const p = wilson(patched, k)
  if (control === null) {
    if (p.lower > 0.5) return 'VERIFIED'
    if (patched === 0) return 'REJECTED'
    return patched / k >= 0.5 ? 'LIKELY' : 'INCONCLUSIVE'
  }
  const c = wilson(control, k)
  if (p.lower > c.upper || (control === 0 && patched === k)) return 'VERIFIED'
  if (patched <= control) return 'REJECTED'
  return 'LIKELY'
}
