import type { Diagnosis } from '../case/schema/run.ts'
import { diagnose } from '../diagnose/diagnose.ts'
import { heuristicDiagnosis } from '../diagnose/heuristic.ts'
import { DEFAULT_K } from '../verify/verify.ts'
import { BENCH_AGENTS } from './agents/index.ts'
import { runEpisode } from './faults.ts'
import { type ScoreCell, type ScoredEpisode, scoreEpisodes } from './score.ts'
import { type BenchAgent, type Episode, FAULT_KINDS, type FaultKind, type GroundTruth } from './types.ts'
import { type FixOutcome, verifyEpisodeFix } from './verify-fixes.ts'

/**
 * Options of `runBench`. The LLM diagnoser runs only when a model is given or set in
 * `CRASHLAB_DIAGNOSER_MODEL` (with `CRASHLAB_DIAGNOSER_BASE_URL` and `CRASHLAB_DIAGNOSER_API_KEY`).
 *
 * @example
 * const options: BenchOptions = { episodes: 3, seed: 1, onProgress: (line) => console.error(line) }
 */
export interface BenchOptions {
  /** Episodes per agent × fault cell. Default 3. */
  episodes?: number
  /** The first episode's seed; episode i uses seed + i. Default 1. */
  seed?: number
  // biome-ignore lint/suspicious/noExplicitAny: each agent has a world type of its own
  agents?: readonly BenchAgent<any>[]
  faults?: readonly FaultKind[]
  model?: string
  baseUrl?: string
  apiKey?: string
  api?: 'openai' | 'anthropic'
  /** The most trials per arm when fixes are verified (LLM only); they stop once decided. Default 20. */
  k?: number
  env?: NodeJS.ProcessEnv
  /** One line per episode, for a progress display. */
  onProgress?: (line: string) => void
}

/**
 * One recorded episode in the report: its ground truth and what each diagnoser said.
 *
 * @example
 * report.runs[0]?.said.heuristic?.label
 */
export interface BenchRun {
  agent: string
  scoredApart: boolean
  fault: FaultKind
  seed: number
  runId: string
  truth: GroundTruth
  said: Record<string, Pick<Diagnosis, 'label' | 'failingStep'> | null>
}

/**
 * What `runBench` measured.
 *
 * @example
 * const report = await runBench({ episodes: 2 })
 * console.log(formatBenchReport(report))
 */
export interface BenchReport {
  episodes: number
  seed: number
  agents: Array<{ name: string; domain: string; scoredApart: boolean }>
  faults: FaultKind[]
  /** The LLM diagnoser's model, or null when none is configured. */
  llm: string | null
  cells: ScoreCell[]
  runs: BenchRun[]
  /** Null when no model is configured (fixes need one); else the top fix of each LLM-diagnosed failing run. */
  fixes: FixOutcome[] | null
}

/**
 * Runs the bench: every agent × fault cell for `episodes` seeds, each episode recorded with its ground
 * truth, diagnosed by the heuristic (and by the LLM diagnoser when a model is configured), and scored
 * with Wilson 95 % intervals; with a model, the top fix of each failing run is verified by forking.
 *
 * @example
 * const report = await runBench({ episodes: 3, seed: 1 })
 * report.cells.filter((c) => c.fault === 'all')
 */
export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const episodes = options.episodes ?? 3
  const seed = options.seed ?? 1
  const agents = options.agents ?? BENCH_AGENTS
  const faults = [...(options.faults ?? FAULT_KINDS)]
  const env = options.env ?? process.env
  const model = options.model ?? env.CRASHLAB_DIAGNOSER_MODEL ?? null
  const llm = model
    ? {
        model,
        baseUrl: options.baseUrl,
        apiKey: options.apiKey ?? env.CRASHLAB_DIAGNOSER_API_KEY,
        api: options.api,
      }
    : null
  const scored: ScoredEpisode[] = []
  const runs: BenchRun[] = []
  const fixes: FixOutcome[] = []
  const total = agents.length * faults.length * episodes
  let done = 0
  for (const agent of agents) {
    for (const fault of faults) {
      for (let i = 0; i < episodes; i++) {
        const episode = await runEpisode(agent, fault, seed + i)
        const said: BenchRun['said'] = {}
        const heuristic = heuristicDiagnosis(episode.run)
        said.heuristic = pickSaid(heuristic)
        scored.push(scoredOf(episode, 'heuristic', heuristic))
        if (llm) {
          let byModel: Diagnosis | null = null
          try {
            byModel = await diagnose(episode.run, { ...llm, env, force: true })
          } catch {
            byModel = null
          }
          said.llm = byModel ? pickSaid(byModel) : null
          scored.push(scoredOf(episode, 'llm', byModel))
          if (byModel && byModel.label !== 'NO_FAILURE' && episode.truth.label !== 'NO_FAILURE') {
            fixes.push(
              await verifyEpisodeFix(
                agent,
                episode,
                { ...episode.run, diagnosis: byModel },
                { ...llm, k: options.k ?? DEFAULT_K },
              ),
            )
          }
        }
        runs.push({
          agent: agent.name,
          scoredApart: agent.scoredApart,
          fault,
          seed: episode.seed,
          runId: episode.run.id,
          truth: episode.truth,
          said,
        })
        done++
        options.onProgress?.(
          `[${done}/${total}] ${agent.name} ${fault} seed ${episode.seed}: truth ${episode.truth.label}, heuristic ${heuristic.label}${llm ? `, llm ${said.llm?.label ?? 'error'}` : ''}`,
        )
      }
    }
  }
  return {
    episodes,
    seed,
    agents: agents.map((a) => ({ name: a.name, domain: a.domain, scoredApart: a.scoredApart })),
    faults,
    llm: model,
    cells: scoreEpisodes(scored),
    runs,
    fixes: llm ? fixes : null,
  }
}

function pickSaid(d: Diagnosis): Pick<Diagnosis, 'label' | 'failingStep'> {
  return { label: d.label, failingStep: d.failingStep }
}

function scoredOf(episode: Episode, diagnoser: string, diagnosis: Diagnosis | null): ScoredEpisode {
  return {
    diagnoser,
    agent: episode.agent,
    scoredApart: episode.scoredApart,
    fault: episode.fault,
    truth: episode.truth,
    diagnosis,
  }
}
