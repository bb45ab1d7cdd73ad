import { describe, expect, test } from 'vitest'
import { type Run, viewRun } from '../src/internal.ts'
import './index.ts'
import { refundRun } from './internal/test-runs.ts'

/** The message of the assertion error `fn` throws, without colors. */
function plainMessage(fn: () => void): string {
  try {
    fn()
  } catch (err) {
    return (err as Error).message.replace(/\u001b\[\d+m/g, '')
  }
  return 'did not throw'
}

function graded(checks: Run['checks'], findings: Run['findings'] = []): Run {
  return { ...refundRun(), checks, findings }
}

describe('toPassChecks', () => {
  test('passes when every check passed, and .not then fails saying so', () => {
    const run = graded([
      { name: 'refund-not-above-total', passed: true },
      { name: 'asked-for-order', passed: true },
    ])
    expect(run).toPassChecks()
    expect(() => expect(run).not.toPassChecks()).toThrow(/but all 2 checks passed/)
    expect(plainMessage(() => expect(run).not.toPassChecks())).toMatch(
      /^expect\(run\)\.not\.toPassChecks\(options\)\n/,
    )
    expect(plainMessage(() => expect(graded([{ name: 'x', passed: false }])).toPassChecks())).toMatch(
      /^expect\(run\)\.toPassChecks\(options\)\n/,
    )
  })

  test('fails listing each failed check with its message; .not passes', () => {
    const run = graded([
      { name: 'refund-not-above-total', passed: false, message: 'refunded 490 on a 49 order' },
      { name: 'asked-for-order', passed: true },
      { name: 'polite', passed: false },
    ])
    expect(run).not.toPassChecks()
    const err = (() => {
      try {
        expect(run).toPassChecks()
      } catch (e) {
        return e as Error
      }
    })()
    expect(err?.message).toMatch(/2 checks of 3 failed/)
    expect(err?.message).toMatch(/refund-not-above-total.*: refunded 490 on a 49 order/)
    expect(err?.message).toMatch(/check .*polite.* failed/)
    expect(err?.message).not.toMatch(/asked-for-order/)
  })

  test('a run with no checks passes vacuously, says so under .not, and fails with requireChecks', () => {
    const run = graded([])
    expect(run).toPassChecks()
    expect(() => expect(run).not.toPassChecks()).toThrow(/no checks at all/)
    expect(() => expect(run).toPassChecks({ requireChecks: true })).toThrow(/no check ran/)
    expect(run).not.toPassChecks({ requireChecks: true })
  })

  test('findings at or above minSeverity fail with kind, severity, steps and evidence', () => {
    const run = graded(
      [{ name: 'ok', passed: true }],
      [
        {
          kind: 'step-repetition',
          severity: 'error',
          steps: [3, 5],
          message: 'the same call three times',
          evidence: ['get_order({"order_id":"A17"})'],
        },
        { kind: 'slow-tool', severity: 'warn', steps: [1], message: 'took 9 s', evidence: [] },
      ],
    )
    expect(() => expect(run).toPassChecks()).toThrow(
      /finding .*step-repetition.* \(error\) at steps 3, 5: the same call three times\n\s+evidence: "get_order/,
    )
    expect(() => expect(run).toPassChecks()).not.toThrow(/slow-tool/)
    expect(() => expect(run).toPassChecks({ minSeverity: 'warn' })).toThrow(/2 findings at or above warn/)
    expect(run).not.toPassChecks()
  })

  test('findings below minSeverity do not fail; .not names them as below', () => {
    const run = graded(
      [{ name: 'ok', passed: true }],
      [{ kind: 'slow-tool', severity: 'warn', steps: [1], message: 'took 9 s', evidence: [] }],
    )
    expect(run).toPassChecks()
    expect(() => expect(run).not.toPassChecks()).toThrow(/1 finding is below error/)
    expect(() => expect(run).toPassChecks({ minSeverity: 'critical' })).not.toThrow()
  })

  test('accepts a RunView and rejects what is not a run', () => {
    const view = viewRun(graded([{ name: 'x', passed: false, message: 'no' }]))
    expect(view).not.toPassChecks()
    expect(() => expect({ hello: 1 }).toPassChecks()).toThrow(/expects a crashlab Run or RunView/)
    expect(() => expect(graded([])).toPassChecks({ minSeverity: 'fatal' as never })).toThrow(
      /minSeverity must be/,
    )
  })
})
