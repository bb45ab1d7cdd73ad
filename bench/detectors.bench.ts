/**
 * The runtime detectors over runs of 1,000 and 10,000 steps, against plain passes over the same steps
 * measured in the same process:
 *
 *   node bench/detectors.bench.ts          (Node 22; ROUNDS=… for more samples)
 *
 * Two kinds of run, each at both sizes: `realistic` (`buildRealisticRun`: an OpenAI chat agent loop whose
 * requests carry a windowed conversation, tool calls answered by wrapped tool steps, streamed responses,
 * plain HTTP steps; it raises no finding) and `stuck` (the same run where every tool call has the same
 * arguments and every tool fails: the repetition and the error streak grow for the whole run, so every
 * finding's step list is as long as it gets). The goal is linear growth: 10,000 steps at most 12× the
 * time of 1,000 steps (`SIZES=1000,10000,20000` adds sizes; the growth line compares the largest with
 * the smallest, against 1.2× their ratio).
 *
 * The growth is measured in pairs of samples (PAIRS=…, default 41): one pass over the small run and one
 * over the large run, in alternating order, each after a young-generation collection, and the figure
 * is the median of the pairs' ratios. The table's medians (each case's samples taken one after the
 * other) are printed as a ratio too: there the small run is read again and again while it is still in
 * the CPU caches, and its samples rarely meet a collection, which the large run's always do.
 */
import { cpus } from 'node:os'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { buildRealisticRun } from '../src/case/internal/test-runs.ts'
import type { Run } from '../src/case/schema/run.ts'
import { createDetectors } from '../src/checks/detectors/create-detectors.ts'
import { detectFindings } from '../src/checks/detectors/detect-findings.ts'
import { newestFrom } from '../src/checks/detectors/internal/newest-messages.ts'
import { measure, median } from './internal/measure.ts'

const WARMUP = 3
const ROUNDS = Number(process.env.ROUNDS ?? 15)
const PAIRS = Number(process.env.PAIRS ?? 41)
/** Run sizes; the growth line compares the largest with the smallest. */
const SIZES = (process.env.SIZES ?? '1000,10000').split(',').map(Number)
const SMALL = Math.min(...SIZES)
const LARGE = Math.max(...SIZES)

/** The realistic run made stuck: one call made again and again, failing every time. */
function stuck(run: Run): Run {
  const copy = structuredClone(run)
  for (const step of copy.steps) {
    if (step.type === 'tool') {
      step.args = { order: 'A17' }
      delete step.result
      step.error = { name: 'Error', message: 'upstream timed out after 30 s' }
    } else if (step.type === 'llm') {
      for (const call of step.response?.normalized?.toolCalls ?? []) call.args = { order: 'A17' }
    }
  }
  return copy
}

/** Floor 1: touches every step and what a detector branches on, nothing more. */
function bareLoop(run: Run): number {
  let n = 0
  for (const step of run.steps) {
    if (step.type === 'llm') n += (step.response?.normalized?.toolCalls.length ?? 0) + (step.cost ? 1 : 0)
    else if (step.type === 'tool') n += step.error ? 1 : 0
    else n++
  }
  return n
}

/**
 * Floor 2, the baseline of the ratios: one plain pass that reads, once, the content the detectors read
 * (each request's messages from its last assistant message on, each response's tool calls, each tool
 * step's arguments and result), as JSON text.
 */
function plainPass(run: Run): number {
  let n = 0
  for (const step of run.steps) {
    if (step.type === 'llm') {
      const messages = step.request.normalized?.messages ?? []
      n += JSON.stringify(messages.slice(Math.max(0, newestFrom(messages) - 1))).length
      n += JSON.stringify(step.response?.normalized?.toolCalls ?? []).length
    } else if (step.type === 'tool') {
      n += JSON.stringify(step.args).length + (JSON.stringify(step.result) ?? '').length
    }
  }
  return n
}

function incremental(run: Run): number {
  const detectors = createDetectors()
  let raised = 0
  for (const step of run.steps) raised += detectors.observe(step, run).length
  return raised + detectors.findings().length
}

console.log('crashlab runtime detectors benchmark')
console.log(
  `  node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${new Date().toISOString()}`,
)
console.log(
  `  median of ${ROUNDS * 3} (${SMALL} steps) or ${ROUNDS} (larger runs) rounds after ${WARMUP} warm-up calls`,
)

// The collector, to start every sample of the growth pairs alike (`node --expose-gc` is not needed).
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void

const runs = new Map<string, Run>()
for (const steps of SIZES) {
  const realistic = buildRealisticRun({ steps, seed: 1, words: 12 })
  runs.set(`realistic ${steps}`, realistic)
  runs.set(`stuck ${steps}`, stuck(realistic))
}
// What building the runs left in the young generation is not billed to the first samples.
gc()

const detectorMs = new Map<string, number>()
const plainMs = new Map<string, number>()
for (const [label, run] of runs) {
  const findings = detectFindings(run)
  const results = measure(
    [
      { name: 'bare loop over the steps', fn: () => bareLoop(run) },
      { name: 'plain pass (baseline)', fn: () => plainPass(run) },
      { name: 'detectFindings(run)', fn: () => detectFindings(run) },
      { name: 'createDetectors().observe(step) × steps', fn: () => incremental(run) },
    ],
    // A 1,000-step pass takes ~2 ms, where timer and scheduling noise weigh most: three times the samples.
    { warmup: WARMUP, rounds: label.endsWith(` ${SMALL}`) ? ROUNDS * 3 : ROUNDS },
  )
  const base = results.get('plain pass (baseline)')!
  const summary =
    findings.map((f) => `${f.kind}:${f.severity} (${f.steps.length} steps)`).join(', ') || 'none'
  console.log(`\n${label} steps; findings: ${summary}`)
  for (const [name, ms] of results) {
    console.log(
      `  ${name.padEnd(42)} ${ms.toFixed(2).padStart(9)} ms   ${(ms / base).toFixed(2)}× the plain pass`,
    )
  }
  detectorMs.set(label, results.get('detectFindings(run)')!)
  plainMs.set(label, base)
}

// The same amount of data as the largest run, as separate small runs: what is left of the growth once
// the memory the data takes is the same on both sides is the detectors' own.
const copies = Math.round(LARGE / SMALL)
const many = Array.from({ length: copies }, (_, i) =>
  buildRealisticRun({ steps: SMALL, seed: i + 1, words: 12 }),
)
const spread = measure(
  [
    { name: 'plain pass', fn: () => many.map(plainPass) },
    { name: 'detectFindings', fn: () => many.map((r) => detectFindings(r)) },
  ],
  { warmup: WARMUP, rounds: ROUNDS },
)
console.log(`\n${copies} separate realistic runs of ${SMALL} steps, one after the other:`)
for (const [name, ms] of spread) console.log(`  ${name.padEnd(42)} ${ms.toFixed(2).padStart(9)} ms`)

/**
 * One pass after a young-generation collection (each sample starts with the same empty nursery): its
 * wall time, and the CPU time of the process (user + system, the collector's helper threads included),
 * which other jobs on a shared machine disturb much less.
 */
function sample(fn: (run: Run) => unknown, run: Run): { wall: number; cpu: number } {
  gc({ type: 'minor' })
  const cpu = process.cpuUsage()
  const start = performance.now()
  fn(run)
  const wall = performance.now() - start
  const used = process.cpuUsage(cpu)
  return { wall, cpu: (used.user + used.system) / 1000 }
}

interface Growth {
  small: number
  large: number
  ratio: number
  cpuRatio: number
}

/**
 * The growth from the small run to the large one: pairs of samples (small then large, then large then
 * small, alternately), after warm-up calls; medians of each size and of the pairs' ratios.
 */
function pairedGrowth(fn: (run: Run) => unknown, small: Run, large: Run): Growth {
  for (let i = 0; i < WARMUP; i++) {
    fn(small)
    fn(large)
  }
  const smalls: number[] = []
  const larges: number[] = []
  const ratios: number[] = []
  const cpuRatios: number[] = []
  for (let i = 0; i < PAIRS; i++) {
    let x: { wall: number; cpu: number }
    let y: { wall: number; cpu: number }
    if (i % 2 === 0) {
      x = sample(fn, small)
      y = sample(fn, large)
    } else {
      y = sample(fn, large)
      x = sample(fn, small)
    }
    smalls.push(x.wall)
    larges.push(y.wall)
    ratios.push(y.wall / x.wall)
    // CPU time is counted in steps of a microsecond or so: a ratio needs a small sample of some length.
    if (x.cpu > 0) cpuRatios.push(y.cpu / x.cpu)
  }
  return { small: median(smalls), large: median(larges), ratio: median(ratios), cpuRatio: median(cpuRatios) }
}

const goal = (1.2 * LARGE) / SMALL
console.log(
  `\ngrowth, ${LARGE} steps / ${SMALL} steps (goal for detectFindings ≤ ${goal}×; the plain pass for scale),` +
    ` ${PAIRS} pairs of samples, median of the ratios:`,
)
for (const kind of ['realistic', 'stuck']) {
  const small = runs.get(`${kind} ${SMALL}`)!
  const large = runs.get(`${kind} ${LARGE}`)!
  const d = pairedGrowth((run) => detectFindings(run), small, large)
  const p = pairedGrowth(plainPass, small, large)
  console.log(
    `  ${kind.padEnd(10)} detectFindings ${d.ratio.toFixed(2)}× ${d.ratio <= goal ? 'OK' : 'OVER'}` +
      ` (${d.small.toFixed(2)} → ${d.large.toFixed(2)} ms; CPU time ${d.cpuRatio.toFixed(2)}×)` +
      `   plain pass ${p.ratio.toFixed(2)}× (${p.small.toFixed(2)} → ${p.large.toFixed(2)} ms;` +
      ` CPU time ${p.cpuRatio.toFixed(2)}×)`,
  )
}
console.log('the same from the table (consecutive samples per case, the small run kept hot in the caches):')
for (const kind of ['realistic', 'stuck']) {
  const r = detectorMs.get(`${kind} ${LARGE}`)! / detectorMs.get(`${kind} ${SMALL}`)!
  const p = plainMs.get(`${kind} ${LARGE}`)! / plainMs.get(`${kind} ${SMALL}`)!
  console.log(`  ${kind.padEnd(10)} detectFindings ${r.toFixed(2)}×   plain pass ${p.toFixed(2)}×`)
}
const same = detectorMs.get(`realistic ${LARGE}`)! / spread.get('detectFindings')!
const samePlain = plainMs.get(`realistic ${LARGE}`)! / spread.get('plain pass')!
console.log(
  `  one realistic run of ${LARGE} steps / ${copies} runs of ${SMALL} steps (the same amount of data): ` +
    `detectFindings ${same.toFixed(2)}×, plain pass ${samePlain.toFixed(2)}×`,
)
