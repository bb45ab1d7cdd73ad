import { describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import { failingStepOf } from './failing-step.ts'
import { buildFailingRun } from './internal/test-fixtures.ts'

function withoutErrors(run: Run): Run {
  return { ...run, findings: [], steps: run.steps.map((s) => ({ ...s, error: null }) as typeof s) }
}

describe('failingStepOf', () => {
  it('is the earliest step that threw or that an error or critical finding names', () => {
    const run = buildFailingRun()
    expect(failingStepOf(run)?.index).toBe(3)
    const earlier = {
      ...run,
      findings: [
        ...run.findings,
        { kind: 'bad_tool_args', severity: 'critical' as const, steps: [2], message: 'bad', evidence: [] },
      ],
    }
    expect(failingStepOf(earlier)).toEqual({ index: 2, reasons: ['critical finding bad_tool_args: bad'] })
  })

  it('gives every reason that points at the step, the error first, then findings by severity', () => {
    const run = buildFailingRun()
    run.findings.push({
      kind: 'budget',
      severity: 'info',
      steps: [3],
      message: 'budget: steps 4 of 5',
      evidence: [],
    })
    expect(failingStepOf(run)?.reasons).toEqual([
      'the tool threw: RefundError: amount 490 exceeds the order total 49 <b>denied</b>',
      'error finding tool_error_streak: issue_refund failed: amount above the order total',
      'info finding budget: budget: steps 4 of 5',
    ])
  })

  it('prefers the step a diagnosis named', () => {
    const run = buildFailingRun()
    run.diagnosis = {
      label: 'WRONG_TOOL_SELECTION',
      failingStep: 2,
      rootCause: 'the model asked for ten times the total',
      evidence: [{ step: 2, quote: '"amount":490' }],
      by: 'heuristic',
      createdAt: '2026-11-01T10:00:00.000Z',
    }
    expect(failingStepOf(run)).toEqual({
      index: 2,
      reasons: ['diagnosis WRONG_TOOL_SELECTION: the model asked for ten times the total'],
    })
  })

  it('ignores a diagnosed step that is not in the run, and warn and info findings', () => {
    const run = withoutErrors(buildFailingRun())
    run.findings = [{ kind: 'step_repetition', severity: 'warn', steps: [1], message: 'x', evidence: [] }]
    run.diagnosis = {
      label: 'UNKNOWN',
      failingStep: 99,
      rootCause: '?',
      evidence: [],
      by: 'heuristic',
      createdAt: '2026-11-01T10:00:00.000Z',
    }
    expect(failingStepOf(run)).toBeNull()
  })

  it('is null for a run that only failed an oracle: checks name no step', () => {
    const run = withoutErrors(buildFailingRun())
    expect(run.outcome).toBe('fail')
    expect(failingStepOf(run)).toBeNull()
  })
})
