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
 */
import { cpus } from 'node:os'
import { buildRealisticRun } from '../src/case/internal/test-runs.ts'
import type { Run } from '../src/case/schema/run.ts'
import { createDetectors } from '../src/checks/detectors/create-detectors.ts'
import { detectFindings } from '../src/checks/detectors/detect-findings.ts'
import { newestFrom } from '../src/checks/detectors/internal/newest-messages.ts'
import { measure } from './internal/measure.ts'

const WARMUP = 3
const ROUNDS = Number(process.env.ROUNDS ?? 15)
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

const runs = new Map<string, Run>()
for (const steps of SIZES) {
  const realistic = buildRealisticRun({ steps, seed: 1, words: 12 })
  runs.set(`realistic ${steps}`, realistic)
  runs.set(`stuck ${steps}`, stuck(realistic))
}

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

const goal = (1.2 * LARGE) / SMALL
console.log(
  `\ngrowth, ${LARGE} steps / ${SMALL} steps (goal for detectFindings ≤ ${goal}×; the plain pass for scale):`,
)
for (const kind of ['realistic', 'stuck']) {
  const r = detectorMs.get(`${kind} ${LARGE}`)! / detectorMs.get(`${kind} ${SMALL}`)!
  const p = plainMs.get(`${kind} ${LARGE}`)! / plainMs.get(`${kind} ${SMALL}`)!
  console.log(
    `  ${kind.padEnd(10)} detectFindings ${r.toFixed(2)}× ${r <= goal ? 'OK' : 'OVER'}   plain pass ${p.toFixed(2)}×`,
  )
}
const same = detectorMs.get(`realistic ${LARGE}`)! / spread.get('detectFindings')!
const samePlain = plainMs.get(`realistic ${LARGE}`)! / spread.get('plain pass')!
console.log(
  `  one realistic run of ${LARGE} steps / ${copies} runs of ${SMALL} steps (the same amount of data): ` +
    `detectFindings ${same.toFixed(2)}×, plain pass ${samePlain.toFixed(2)}×`,
)
