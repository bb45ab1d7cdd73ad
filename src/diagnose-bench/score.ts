import type { Diagnosis, FailureLabel } from '../case/schema/run.ts'
import { wilson } from '../verify/stats.ts'
import type { GroundTruth } from './types.ts'

/**
 * One episode as a diagnoser saw it: the truth, and what the diagnoser said (null when its call failed,
 * which counts as wrong).
 *
 * @example
 * const scored: ScoredEpisode = { diagnoser: 'heuristic', agent: 'refund-bot', scoredApart: false, fault: 'wrong-tool', truth, diagnosis }
 */
export interface ScoredEpisode {
  diagnoser: string
  agent: string
  scoredApart: boolean
  fault: string
  truth: GroundTruth
  diagnosis: Diagnosis | null
}

/**
 * A share with its Wilson 95 % interval.
 *
 * @example
 * const share: Share = { hits: 9, n: 10, rate: 0.9, lower: 0.596, upper: 0.982 }
 */
export interface Share {
  hits: number
  n: number
  rate: number | null
  lower: number
  upper: number
}

/**
 * The score of one cell (diagnoser × agent × fault), or of a pooled row (`fault: 'all'`; `agent:
 * 'demo agents'` pools the demo agents).
 *
 * @example
 * `${cell.label.hits}/${cell.label.n}`
 */
export interface ScoreCell {
  diagnoser: string
  agent: string
  scoredApart: boolean
  fault: string
  label: Share
  step: Share
}

/**
 * True when the diagnosis names the true label.
 *
 * @example
 * labelCorrect(truth, diagnosis) // true
 */
export function labelCorrect(truth: GroundTruth, diagnosis: Diagnosis | null): boolean {
  return diagnosis !== null && diagnosis.label === truth.label
}

/**
 * True when the diagnosis names the failing step: one of the steps of the failing action (the model call
 * that made a bad tool call, or the tool step that ran it), or no step when nothing failed.
 *
 * @example
 * stepCorrect({ label: 'WRONG_TOOL_SELECTION', failingStep: 2, acceptedSteps: [2, 3], how }, { ...d, failingStep: 3 }) // true
 */
export function stepCorrect(truth: GroundTruth, diagnosis: Diagnosis | null): boolean {
  if (diagnosis === null) return false
  if (truth.label === 'NO_FAILURE') return diagnosis.failingStep === null
  return diagnosis.failingStep !== null && truth.acceptedSteps.includes(diagnosis.failingStep)
}

/**
 * `hits` of `n` with its Wilson 95 % interval (`wilson` of src/verify/stats.ts).
 *
 * @example
 * share(3, 3) // { hits: 3, n: 3, rate: 1, lower: 0.438…, upper: 1 }
 */
export function share(hits: number, n: number): Share {
  const { lower, upper } = wilson(hits, n)
  return { hits, n, rate: n === 0 ? null : hits / n, lower, upper }
}

/**
 * Scores episodes per diagnoser × agent × fault, then pooled rows: per diagnoser, every demo agent
 * together (`agent: 'demo agents'`), and each agent scored apart on its own (`fault: 'all'`).
 *
 * @example
 * const cells = scoreEpisodes(scored)
 * cells.find((c) => c.agent === 'calendar-assistant' && c.fault === 'all')?.label.rate
 */
export function scoreEpisodes(episodes: readonly ScoredEpisode[]): ScoreCell[] {
  const groups = new Map<string, { head: Omit<ScoreCell, 'label' | 'step'>; items: ScoredEpisode[] }>()
  const add = (head: Omit<ScoreCell, 'label' | 'step'>, e: ScoredEpisode) => {
    const key = `${head.diagnoser}\u0000${head.agent}\u0000${head.fault}`
    const group = groups.get(key) ?? { head, items: [] }
    group.items.push(e)
    groups.set(key, group)
  }
  for (const e of episodes) {
    add({ diagnoser: e.diagnoser, agent: e.agent, scoredApart: e.scoredApart, fault: e.fault }, e)
  }
  for (const e of episodes) {
    const agent = e.scoredApart ? e.agent : 'demo agents'
    add({ diagnoser: e.diagnoser, agent, scoredApart: e.scoredApart, fault: 'all' }, e)
  }
  return [...groups.values()].map(({ head, items }) => ({
    ...head,
    label: share(items.filter((e) => labelCorrect(e.truth, e.diagnosis)).length, items.length),
    step: share(items.filter((e) => stepCorrect(e.truth, e.diagnosis)).length, items.length),
  }))
}

/**
 * A share as the table prints it: `5/6  83% [44–97]`.
 *
 * @example
 * formatShare(share(5, 6)) // '5/6  83% [44–97]'
 */
export function formatShare(s: Share): string {
  const pct = (x: number) => `${Math.round(x * 100)}`
  const rate = s.rate === null ? ' n/a' : `${pct(s.rate)}%`.padStart(4)
  return `${s.hits}/${s.n} ${rate} [${pct(s.lower)}–${pct(s.upper)}]`
}

/**
 * How often each true label was diagnosed as each label: `matrix[truth][said]`.
 *
 * @example
 * confusion(scored).TASK_SPEC_VIOLATION?.WRONG_TOOL_SELECTION // 0
 */
export function confusion(
  episodes: ReadonlyArray<Pick<ScoredEpisode, 'truth' | 'diagnosis'>>,
): Partial<Record<FailureLabel, Partial<Record<FailureLabel | 'ERROR', number>>>> {
  const matrix: Partial<Record<FailureLabel, Partial<Record<FailureLabel | 'ERROR', number>>>> = {}
  for (const e of episodes) {
    const row = matrix[e.truth.label] ?? {}
    matrix[e.truth.label] = row
    const said = e.diagnosis?.label ?? 'ERROR'
    row[said] = (row[said] ?? 0) + 1
  }
  return matrix
}
