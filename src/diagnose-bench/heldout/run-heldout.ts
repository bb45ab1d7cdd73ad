import type { Diagnosis, Run } from '../../case/schema/run.ts'
import { HELDOUT_AGENTS } from './agents/index.ts'
import { runHeldoutEpisode } from './faults.ts'
import { type HeldoutScore, type HeldoutScored, scoreHeldout } from './score-heldout.ts'
import { HELDOUT_FAULT_KINDS, type HeldoutAgent, type HeldoutFaultKind, type Wire } from './types.ts'

/**
 * A diagnoser the held-out bench scores: a name and a function from a run to its diagnosis (a throw
 * counts as wrong). The held-out set takes diagnosers from its caller and imports none itself.
 *
 * @example
 * const diagnoser: HeldoutDiagnoser = { name: 'heuristic', diagnose: (run) => heuristicDiagnosis(run) }
 */
export interface HeldoutDiagnoser {
  name: string
  diagnose(run: Run): Diagnosis | Promise<Diagnosis>
}

/**
 * Options of `runHeldoutBench`.
 *
 * @example
 * const options: HeldoutBenchOptions = { diagnosers: [heuristic], episodes: 2, seed: 1 }
 */
export interface HeldoutBenchOptions {
  diagnosers: readonly HeldoutDiagnoser[]
  /** Episodes per agent × fault kind; episode i uses seed + i. Default 2 (5 × 15 × 2 = 150 episodes). */
  episodes?: number
  /** Default 1. */
  seed?: number
  agents?: readonly HeldoutAgent[]
  faults?: readonly HeldoutFaultKind[]
  onProgress?: (line: string) => void
}

/**
 * What `runHeldoutBench` measured: every episode with its truth and each diagnoser's answer, and each
 * diagnoser's score.
 *
 * @example
 * report.scores.heuristic?.falseAlarms.recovered
 */
export interface HeldoutBenchReport {
  episodes: number
  seed: number
  agents: Array<{ name: string; domain: string; wire: Wire }>
  faults: HeldoutFaultKind[]
  runs: Array<{
    agent: string
    wire: Wire
    fault: HeldoutFaultKind
    seed: number
    runId: string
    truth: HeldoutScored['truth']
    said: Record<string, Pick<Diagnosis, 'label' | 'failingStep'> | null>
  }>
  scores: Record<string, HeldoutScore>
}

/**
 * Runs the held-out set (every agent × fault kind × `episodes` seeds, recorded on the scripted provider)
 * and scores each diagnoser on it.
 *
 * @example
 * const report = await runHeldoutBench({ diagnosers: [{ name: 'heuristic', diagnose: heuristicDiagnosis }] })
 * report.scores.heuristic?.label.rate
 */
export async function runHeldoutBench(options: HeldoutBenchOptions): Promise<HeldoutBenchReport> {
  const episodes = options.episodes ?? 2
  const seed = options.seed ?? 1
  const agents = options.agents ?? HELDOUT_AGENTS
  const faults = [...(options.faults ?? HELDOUT_FAULT_KINDS)]
  const runs: HeldoutBenchReport['runs'] = []
  const scored: Record<string, HeldoutScored[]> = {}
  const total = agents.length * faults.length * episodes
  for (const agent of agents) {
    for (const fault of faults) {
      for (let i = 0; i < episodes; i++) {
        const episode = await runHeldoutEpisode(agent, fault, seed + i)
        const said: HeldoutBenchReport['runs'][number]['said'] = {}
        for (const d of options.diagnosers) {
          let answer: Pick<Diagnosis, 'label' | 'failingStep'> | null = null
          try {
            const diagnosis = await d.diagnose(episode.run)
            answer = { label: diagnosis.label, failingStep: diagnosis.failingStep }
          } catch {
            answer = null
          }
          said[d.name] = answer
          const list = scored[d.name] ?? []
          list.push({ fault, truth: episode.truth, diagnosis: answer })
          scored[d.name] = list
        }
        runs.push({
          agent: agent.name,
          wire: agent.wire,
          fault,
          seed: episode.seed,
          runId: episode.run.id,
          truth: episode.truth,
          said,
        })
        const answers = Object.entries(said).map(([name, a]) => `${name} ${a?.label ?? 'error'}`)
        options.onProgress?.(
          `[held-out ${runs.length}/${total}] ${agent.name} ${fault} seed ${episode.seed}: truth ${episode.truth.label}, ${answers.join(', ')}`,
        )
      }
    }
  }
  const scores: Record<string, HeldoutScore> = {}
  for (const [name, items] of Object.entries(scored)) scores[name] = scoreHeldout(items)
  return {
    episodes,
    seed,
    agents: agents.map((a) => ({ name: a.name, domain: a.domain, wire: a.wire })),
    faults,
    runs,
    scores,
  }
}
