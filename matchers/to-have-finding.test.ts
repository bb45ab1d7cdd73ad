import { describe, expect, test } from 'vitest'
import type { Finding, Run } from '../src/internal.ts'
import './index.ts'
import { refundRun } from './internal/test-runs.ts'

const repetition: Finding = {
  kind: 'step_repetition',
  severity: 'critical',
  steps: [1, 3, 5],
  message: 'get_order called 3 times with the same args',
  evidence: ['{"order_id":"A17"}'],
}
const budget: Finding = {
  kind: 'budget',
  severity: 'warn',
  steps: [4],
  message: 'tool calls at 80% of maxToolCalls (4 of 5)',
  evidence: ['4 tool calls'],
}

function withFindings(...findings: Finding[]): Run {
  return { ...refundRun(), findings }
}

describe('toHaveFinding', () => {
  test('matches by kind, then by minimum severity and by step', () => {
    const run = withFindings(repetition, budget)
    expect(run).toHaveFinding('step_repetition')
    expect(run).toHaveFinding('budget', { minSeverity: 'warn' })
    expect(run).not.toHaveFinding('budget', { minSeverity: 'error' })
    expect(run).toHaveFinding('step_repetition', { step: 3 })
    expect(run).not.toHaveFinding('step_repetition', { step: 2 })
    expect(run).not.toHaveFinding('bad_tool_args')
  })

  test('a failure lists the findings the run does have', () => {
    const run = withFindings(repetition, budget)
    expect(() => expect(run).toHaveFinding('bad_tool_args')).toThrow(
      /Expected a finding .*bad_tool_args.*, but the run's 2 findings:\n\s+- .*step_repetition.* \(critical\) at steps 1, 3, 5: get_order called 3 times/,
    )
    expect(() => expect(refundRun()).toHaveFinding('budget')).toThrow(/the run has no findings at all/)
  })

  test('.not lists the ones that matched', () => {
    expect(() => expect(withFindings(budget)).not.toHaveFinding('budget')).toThrow(
      /Expected no finding .*budget.*, but the run has 1 matching finding:\n\s+- .*budget.* \(warn\) at step 4/,
    )
  })

  test('rejects a missing kind or an unknown severity', () => {
    expect(() => expect(refundRun()).toHaveFinding('')).toThrow(/needs the finding's kind/)
    expect(() => expect(refundRun()).toHaveFinding('budget', { minSeverity: 'fatal' as never })).toThrow(
      /minSeverity must be one of info, warn, error, critical/,
    )
  })
})
