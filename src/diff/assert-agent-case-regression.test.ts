import { describe, expect, it } from 'vitest'
import { buildSampleRun } from '../case/agentcase/internal/test-sample-run.ts'
import type { AgentCase } from '../case/agentcase/schema.ts'
import { toAgentCase } from '../case/agentcase/to-agent-case.ts'
import type { JsonObject } from '../case/schema/json.ts'
import { type CrashlabError, isCrashlabError } from '../errors.ts'
import { assertAgentCaseRegression } from './assert-agent-case-regression.ts'

const baseline = (): AgentCase => toAgentCase(buildSampleRun())

function thrown(fn: () => void): CrashlabError {
  try {
    fn()
  } catch (err) {
    if (isCrashlabError(err)) return err
    throw err
  }
  throw new Error('expected assertAgentCaseRegression to throw')
}

describe('assertAgentCaseRegression', () => {
  it('passes when only volatile locations changed', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.created_at = '2030-01-01T00:00:00Z'
    b.events[3]!.timestamp = '2030-01-01T00:00:00Z'
    expect(() => assertAgentCaseRegression(a, b)).not.toThrow()
  })

  it('throws E_REGRESSION naming the path, both values, the count and how to accept the change', () => {
    const a = baseline()
    const b = structuredClone(a)
    ;(b.events[9]!.payload.arguments as JsonObject).amount = 590
    const err = thrown(() => assertAgentCaseRegression(a, b, { subject: '__cassettes__/refund.agentcase' }))
    expect(err.code).toBe('E_REGRESSION')
    expect(err.subject).toBe('__cassettes__/refund.agentcase')
    expect(err.message).toMatch(
      /^\[crashlab\] regression in __cassettes__\/refund\.agentcase: 1 difference \(normalized mode/,
    )
    expect(err.message).toContain(
      '  $.events[9].payload.arguments.amount: expected 59.9, got 590 (value_mismatch)',
    )
    expect(err.message).toContain('`vitest -u`')
    expect(err.issues).toStrictEqual([
      {
        code: 'value_mismatch',
        path: '$.events[9].payload.arguments.amount',
        message: '$.events[9].payload.arguments.amount: expected 59.9, got 590 (value_mismatch)',
      },
    ])
  })

  it('lists the first 20 differences, then a count, with long values abbreviated', () => {
    const a = baseline()
    const b = structuredClone(a)
    for (const e of b.events) e.payload.note = `changed ${'x'.repeat(500)}`
    const err = thrown(() => assertAgentCaseRegression(a, b))
    const n = a.events.length
    expect(err.message).toContain(`regression against the baseline: ${n} differences`)
    const lines = err.message.split('\n').filter((l) => l.startsWith('  $.'))
    expect(lines).toHaveLength(Math.min(n, 20))
    expect(lines[0]).toBe(
      `  $.events[0].payload.note: unexpected, got "changed ${'x'.repeat(70)}… (unexpected_key)`,
    )
    expect(err.issues).toHaveLength(n)

    const limited = thrown(() => assertAgentCaseRegression(a, b, { limit: 3 }))
    expect(limited.message.split('\n').filter((l) => l.startsWith('  $.'))).toHaveLength(3)
    expect(limited.message).toContain(`  … and ${n - 3} more`)
  })

  it('honours the mode', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.events[0]!.payload.name = ' refund-bot '
    expect(() => assertAgentCaseRegression(a, b)).not.toThrow()
    expect(thrown(() => assertAgentCaseRegression(a, b, { mode: 'exact' })).message).toContain('(exact mode')
  })
})
