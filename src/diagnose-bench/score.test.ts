import { describe, expect, it } from 'vitest'
import type { Diagnosis, FailureLabel } from '../case/schema/run.ts'
import {
  confusion,
  formatShare,
  labelCorrect,
  type ScoredEpisode,
  scoreEpisodes,
  share,
  stepCorrect,
} from './score.ts'
import type { GroundTruth } from './types.ts'

const said = (label: FailureLabel, failingStep: number | null): Diagnosis => ({
  label,
  failingStep,
  rootCause: 'x.',
  evidence: [],
  by: 'heuristic',
  createdAt: '2026-01-01T00:00:00.000Z',
})
const wrongTool: GroundTruth = {
  label: 'WRONG_TOOL_SELECTION',
  failingStep: 2,
  acceptedSteps: [2, 3],
  how: 'h',
}
const clean: GroundTruth = { label: 'NO_FAILURE', failingStep: null, acceptedSteps: [], how: 'h' }

describe('label and step correctness', () => {
  it('takes either step of the failing action, and no step for a clean run', () => {
    expect(labelCorrect(wrongTool, said('WRONG_TOOL_SELECTION', 9))).toBe(true)
    expect(labelCorrect(wrongTool, said('TASK_SPEC_VIOLATION', 3))).toBe(false)
    expect(stepCorrect(wrongTool, said('TASK_SPEC_VIOLATION', 3))).toBe(true)
    expect(stepCorrect(wrongTool, said('WRONG_TOOL_SELECTION', 4))).toBe(false)
    expect(stepCorrect(wrongTool, said('WRONG_TOOL_SELECTION', null))).toBe(false)
    expect(stepCorrect(clean, said('NO_FAILURE', null))).toBe(true)
    expect(stepCorrect(clean, said('UNKNOWN', 0))).toBe(false)
    // A diagnoser that failed is wrong on both counts.
    expect(labelCorrect(clean, null)).toBe(false)
    expect(stepCorrect(clean, null)).toBe(false)
  })
})

describe('share', () => {
  it('carries the Wilson 95% interval, worked by hand', () => {
    // 2 of 4: p = .5, z = 1.96; centre .5, half = 1.96·sqrt(.0625 + .0601)/1.9604 = .3498
    const s = share(2, 4)
    expect(s.rate).toBe(0.5)
    expect(s.lower).toBeCloseTo(0.15, 3)
    expect(s.upper).toBeCloseTo(0.85, 3)
    expect(share(3, 3).lower).toBeCloseTo(0.4385, 3)
    expect(share(0, 3).upper).toBeCloseTo(0.5615, 3)
    expect(share(0, 0)).toEqual({ hits: 0, n: 0, rate: null, lower: 0, upper: 1 })
    expect(formatShare(share(2, 4))).toBe('2/4  50% [15–85]')
    expect(formatShare(share(3, 3))).toBe('3/3 100% [44–100]')
  })
})

describe('scoreEpisodes', () => {
  const ep = (
    agent: string,
    scoredApart: boolean,
    fault: string,
    truth: GroundTruth,
    d: Diagnosis | null,
  ): ScoredEpisode => ({
    diagnoser: 'heuristic',
    agent,
    scoredApart,
    fault,
    truth,
    diagnosis: d,
  })
  const episodes = [
    ep('a', false, 'wrong-tool', wrongTool, said('WRONG_TOOL_SELECTION', 2)),
    ep('a', false, 'wrong-tool', wrongTool, said('TASK_SPEC_VIOLATION', 3)),
    ep('b', false, 'clean', clean, said('NO_FAILURE', null)),
    ep('h', true, 'clean', clean, said('UNKNOWN', 1)),
    ep('h', true, 'wrong-tool', wrongTool, null),
  ]
  const cells = scoreEpisodes(episodes)
  const cell = (agent: string, fault: string) => cells.find((c) => c.agent === agent && c.fault === fault)

  it('scores each cell', () => {
    expect(cell('a', 'wrong-tool')?.label).toMatchObject({ hits: 1, n: 2 })
    expect(cell('a', 'wrong-tool')?.step).toMatchObject({ hits: 2, n: 2 })
    expect(cell('b', 'clean')?.label).toMatchObject({ hits: 1, n: 1 })
  })

  it('pools the demo agents, and keeps the held-out agent apart', () => {
    expect(cell('demo agents', 'all')).toMatchObject({
      scoredApart: false,
      label: { hits: 2, n: 3 },
      step: { hits: 3, n: 3 },
    })
    expect(cell('h', 'all')).toMatchObject({
      scoredApart: true,
      label: { hits: 0, n: 2 },
      step: { hits: 0, n: 2 },
    })
    expect(cells.some((c) => c.agent === 'demo agents' && c.scoredApart)).toBe(false)
  })

  it('counts the confusion of labels, a failed diagnoser as ERROR', () => {
    expect(confusion(episodes)).toEqual({
      WRONG_TOOL_SELECTION: { WRONG_TOOL_SELECTION: 1, TASK_SPEC_VIOLATION: 1, ERROR: 1 },
      NO_FAILURE: { NO_FAILURE: 1, UNKNOWN: 1 },
    })
  })
})
