/**
 * The sequential verdict rule of `verify` against the fixed-k rule it replaced, on simulated Bernoulli
 * arms with a known effect (counts, not timings):
 *
 *   node bench/verify-sequential.bench.ts          (Node 22; SEEDS=… for more, default 10,000)
 *
 * Each scenario runs SEEDS seeds of the real decision rule (`simulateSequential`: rounds of one pair
 * per open arm, a budget of 20 trials per arm) and of the old rule at k = 5 and k = 20 (k trials per
 * arm, each past good run re-run once with the patch), from the same seeded generator. It prints how
 * often each verdict came out and the mean number of trials per arm. Goals: a true fix VERIFIED in
 * ≥ 95 %, a patch with no effect VERIFIED in ≤ 5 %, a fix that breaks a past good run REJECTED in ≥ 95 %.
 */
import type { Verdict } from '../src/case/schema/run.ts'
import { createRng } from '../src/testing/create-rng.ts'
import { type Scenario, simulateSequential } from '../src/verify/internal/simulate-verification.ts'
import { fixedKVerdict } from './internal/fixed-k-rule.ts'

const SEEDS = Number(process.env.SEEDS ?? 10_000)
const BUDGET = 20

const scenarios: Array<Scenario & { goal: string; ok: (share: Record<Verdict, number>) => boolean }> = [
  {
    name: 'true fix: 0.9 vs 0',
    patched: 0.9,
    control: 0,
    goodRuns: [],
    goal: 'VERIFIED ≥ 95 %',
    ok: (s) => s.VERIFIED >= 0.95,
  },
  {
    name: 'no effect: 0.3 vs 0.3',
    patched: 0.3,
    control: 0.3,
    goodRuns: [],
    goal: 'VERIFIED ≤ 5 %',
    ok: (s) => s.VERIFIED <= 0.05,
  },
  {
    name: 'breaks a good run: 0.9 vs 0, good 0.95 → 0.3',
    patched: 0.9,
    control: 0,
    goodRuns: [{ without: 0.95, with: 0.3 }],
    goal: 'REJECTED ≥ 95 %',
    ok: (s) => s.REJECTED >= 0.95,
  },
  {
    name: 'true fix, flaky good run: 0.9 vs 0, good 0.8 → 0.8',
    patched: 0.9,
    control: 0,
    goodRuns: [{ without: 0.8, with: 0.8 }],
    goal: 'REJECTED ≤ 5 %',
    ok: (s) => s.REJECTED <= 0.05,
  },
  {
    name: 'moderate fix: 0.7 vs 0.3',
    patched: 0.7,
    control: 0.3,
    goodRuns: [],
    goal: '(none)',
    ok: () => true,
  },
  { name: 'no control: 0.9', patched: 0.9, control: null, goodRuns: [], goal: '(none)', ok: () => true },
]

function fixedK(
  scenario: Scenario,
  k: number,
): { counts: Record<Verdict, number>; meanTrialsPerArm: number } {
  const counts: Record<Verdict, number> = { VERIFIED: 0, LIKELY: 0, INCONCLUSIVE: 0, REJECTED: 0 }
  for (let seed = 0; seed < SEEDS; seed++) {
    const rng = createRng(seed)
    const passes = (p: number, n: number) =>
      Array.from({ length: n }, () => rng.chance(p)).filter(Boolean).length
    const patched = passes(scenario.patched, k)
    const control = scenario.control === null ? null : passes(scenario.control, k)
    const goodRunsPassed = scenario.goodRuns.map((g) => rng.chance(g.with))
    counts[fixedKVerdict({ k, patched, control, goodRunsPassed })]++
  }
  return { counts, meanTrialsPerArm: k }
}

const pct = (n: number) => `${((100 * n) / SEEDS).toFixed(1)} %`.padStart(7)
const row = (rule: string, r: { counts: Record<Verdict, number>; meanTrialsPerArm: number }) =>
  `  ${rule.padEnd(22)} ${pct(r.counts.VERIFIED)} ${pct(r.counts.LIKELY)} ${pct(r.counts.INCONCLUSIVE)} ${pct(r.counts.REJECTED)}   ${r.meanTrialsPerArm.toFixed(2).padStart(6)}`

console.log(
  `verify: sequential rule (budget ${BUDGET} per arm) vs fixed k, ${SEEDS.toLocaleString('en')} seeds a scenario\n`,
)
let failed = 0
for (const scenario of scenarios) {
  const seq = simulateSequential(scenario, { seeds: SEEDS, k: BUDGET })
  const share = Object.fromEntries(Object.entries(seq.counts).map(([v, n]) => [v, n / SEEDS])) as Record<
    Verdict,
    number
  >
  const met = scenario.ok(share)
  if (!met) failed++
  console.log(`${scenario.name} — goal ${scenario.goal}: ${met ? 'met' : 'NOT MET'}`)
  console.log(`  ${'rule'.padEnd(22)} VERIFIED  LIKELY INCONCL. REJECTED   trials/arm`)
  console.log(row(`sequential, ≤ ${BUDGET}`, seq))
  console.log(row('fixed k = 5', fixedK(scenario, 5)))
  console.log(row('fixed k = 20', fixedK(scenario, 20)))
  console.log(`  (sequential: ${seq.meanForks.toFixed(1)} forks in all, past good runs included)\n`)
}
if (failed > 0) process.exitCode = 1
