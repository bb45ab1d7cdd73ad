/**
 * Writes the runs of the labelled evaluation set: episodes of the two demo agents with every fault kind
 * and clean ones, as cassettes `runs/run-NN.cassette.json`, in a shuffled order and under neutral names,
 * so that whoever labels them reads each run rather than its file name. It writes no label: labels.json
 * is written by hand (see README.md).
 *
 *   node bench/diagnoser/generate.ts
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { BENCH_AGENTS, flightRebookerAgent, refundBotAgent } from '../../src/diagnose-bench/agents/index.ts'
import { runEpisode } from '../../src/diagnose-bench/faults.ts'
import { FAULT_KINDS, type FaultKind } from '../../src/diagnose-bench/types.ts'
import { createRng } from '../../src/testing/create-rng.ts'

const dir = join(import.meta.dirname, 'runs')
// The demo agents only: the held-out agent stays out of anything a diagnoser could be tuned on.
const agents = BENCH_AGENTS.filter((a) => !a.scoredApart)

const plan: Array<{ agent: (typeof agents)[number]; fault: FaultKind; seed: number }> = []
for (const agent of agents) {
  for (const fault of FAULT_KINDS) for (const seed of [101, 102, 103]) plan.push({ agent, fault, seed })
}
// Two more HTML 502 episodes and two more clean and dropped-policy ones, off the grid.
plan.push({ agent: refundBotAgent, fault: 'html-502', seed: 104 })
plan.push({ agent: flightRebookerAgent, fault: 'html-502', seed: 105 })
plan.push({ agent: refundBotAgent, fault: 'clean', seed: 106 })
plan.push({ agent: flightRebookerAgent, fault: 'dropped-policy', seed: 107 })

// A seeded Fisher–Yates shuffle: the same order on every machine.
const rng = createRng('bench/diagnoser')
for (let i = plan.length - 1; i > 0; i--) {
  const j = rng.int(i + 1)
  ;[plan[i], plan[j]] = [plan[j]!, plan[i]!]
}

rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
for (const [i, { agent, fault, seed }] of plan.entries()) {
  const file = join(dir, `run-${String(i + 1).padStart(2, '0')}.cassette.json`)
  await runEpisode(agent, fault, seed, { cassette: file, tags: [], entryPoint: false })
}
console.log(`wrote ${plan.length} runs to ${dir}`)
