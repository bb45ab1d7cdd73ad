import { describe, expect, it } from 'vitest'
import type { CheckResult } from '../case/schema/run.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { chatRun } from './internal/test-chat-run.ts'

// Rule 1: a run whose outcome passes with every oracle passing is NO_FAILURE, whatever transient errors
// it went through on the way.

const PASS: CheckResult[] = [
  { name: 'refundDone', passed: true },
  { name: 'refundNeverExceedsTotal', passed: true },
]
const ORDER = { name: 'get_order', args: { order_id: 'A17' }, result: { order_id: 'A17', total: 49 } }
const REFUND = { name: 'issue_refund', args: { order_id: 'A17', amount: 49 }, result: { ok: true } }
const USER = 'Refund my order A17, it arrived broken'

describe('heuristicDiagnosis, rule 1: a passing run is NO_FAILURE', () => {
  it('a provider 502 the agent retried, with the repetition finding it raised', () => {
    const run = chatRun({
      user: USER,
      turns: [{ status: 502 }, { call: ORDER }, { call: REFUND }, { text: 'Refunded $49.' }],
      checks: PASS,
    })
    run.findings = [
      {
        kind: 'step_repetition',
        severity: 'warn',
        steps: [0, 1],
        message: 'the same request twice',
        evidence: [],
      },
    ]
    const d = heuristicDiagnosis(run)
    expect(d).toMatchObject({ label: 'NO_FAILURE', failingStep: null, evidence: [] })
    expect(d.rootCause).toBe(
      'The run passed: all 2 of its checks passed, and it recovered from 1 failed model call.',
    )
  })

  it('a bad argument the tool refused and the model corrected', () => {
    const run = chatRun({
      user: USER,
      turns: [
        { call: ORDER },
        {
          call: {
            name: 'issue_refund',
            args: { order_id: 'A17', amount: '49' },
            error: 'amount must be a number',
          },
        },
        { call: REFUND },
        { text: 'Refunded $49.' },
      ],
      checks: PASS,
    })
    run.findings = [
      {
        kind: 'bad_tool_args',
        severity: 'error',
        steps: [2],
        message: 'issue_refund was called with arguments its schema rejects',
        evidence: ['"amount":"49"'],
      },
    ]
    const d = heuristicDiagnosis(run)
    expect(d.label).toBe('NO_FAILURE')
    expect(d.rootCause).toBe(
      'The run passed: all 2 of its checks passed, and it recovered from 1 failed tool call.',
    )
  })

  it('a tool that timed out once and was called again, one check', () => {
    const run = chatRun({
      user: USER,
      turns: [
        { call: { ...ORDER, result: undefined, error: 'timeout after 10000 ms' } },
        { call: ORDER },
        { call: REFUND },
        { text: 'Refunded $49.' },
      ],
      checks: [{ name: 'refundDone', passed: true }],
    })
    run.findings = [
      { kind: 'tool_error_streak', severity: 'warn', steps: [1], message: 'get_order failed', evidence: [] },
    ]
    expect(heuristicDiagnosis(run)).toMatchObject({
      label: 'NO_FAILURE',
      rootCause: 'The run passed: its check passed, and it recovered from 1 failed tool call.',
    })
  })
})

describe('heuristicDiagnosis, rule 1: what is not a passing run', () => {
  const retried = (checks: CheckResult[], status: 'ok' | 'error' = 'ok') =>
    chatRun({
      user: USER,
      turns: [{ status: 502 }, { call: ORDER }, { call: REFUND }, { text: 'Refunded $49.' }],
      checks,
      status,
    })

  it('a run that threw, even with its checks passing (a circuit breaker stopped it)', () => {
    const d = heuristicDiagnosis(retried(PASS, 'error'))
    expect(d).toMatchObject({ label: 'EXTERNAL_FAILURE', failingStep: 0 })
  })

  it('a run with one failed check', () => {
    const d = heuristicDiagnosis(retried([...PASS, { name: 'answerPolite', passed: false }]))
    expect(d.label).toBe('EXTERNAL_FAILURE')
  })

  it('a run no oracle graded (outcome unknown)', () => {
    const run = retried([])
    expect(run.outcome).toBe('unknown')
    expect(heuristicDiagnosis(run).label).toBe('EXTERNAL_FAILURE')
  })

  it('a run whose outcome says fail though its listed checks passed', () => {
    const run = retried(PASS)
    run.outcome = 'fail'
    expect(heuristicDiagnosis(run).label).toBe('EXTERNAL_FAILURE')
  })
})
