import { afterEach, describe, expect, test } from 'vitest'
import { RunSchema } from '../../case/schema/run.ts'
import { buildAgentRun } from '../internal/test-agent-run.ts'
import { applyOracles } from './apply-oracles.ts'
import { check } from './check.ts'
import { evaluateOracles, outcomeOf } from './evaluate-oracles.ts'
import { clearOracles } from './oracle-registry.ts'

afterEach(() => clearOracles())

/** The refund-bot of the Quickstart: looks the order up, then refunds `amount` through a wrapped tool. */
function refundRun(amount: number) {
  return buildAgentRun([
    { llm: { calls: [{ id: 'call_1', name: 'get_order', args: { order_id: 'A17' } }] } },
    { tool: { name: 'get_order', callId: 'call_1', args: { order_id: 'A17' }, result: { total: 49 } } },
    { llm: { calls: [{ id: 'call_2', name: 'issue_refund', args: { order_id: 'A17', amount } }] } },
    {
      tool: {
        name: 'issue_refund',
        callId: 'call_2',
        args: { order_id: 'A17', amount },
        result: { ok: true },
      },
    },
    { llm: { text: `I have refunded $${amount} for order A17.` } },
  ])
}

describe('the Quickstart oracle', () => {
  const register = () =>
    check('refund-bot', function refundNotAboveTotal(run) {
      for (const call of run.toolCalls('issue_refund', { okOnly: true }))
        expect(call.args.amount).toBeLessThanOrEqual(49)
    })

  test('fails a run that refunded 490, naming the amount', async () => {
    register()
    const { outcome, checks, results } = await evaluateOracles(refundRun(490), { agent: 'refund-bot' })
    expect(outcome).toBe('fail')
    expect(checks).toEqual([
      { name: 'refundNotAboveTotal', passed: false, message: 'expected 490 to be less than or equal to 49' },
    ])
    expect(results[0]!.status).toBe('fail')
  })

  test('passes a run that refunded 49', async () => {
    register()
    const { outcome, checks } = await evaluateOracles(refundRun(49), { agent: 'refund-bot' })
    expect(outcome).toBe('pass')
    expect(checks).toEqual([{ name: 'refundNotAboveTotal', passed: true }])
  })
})

describe('evaluateOracles', () => {
  test('outcome: unknown with no oracle, pass when all pass, fail when any fails', async () => {
    const run = refundRun(49)
    expect(await evaluateOracles(run)).toEqual({ outcome: 'unknown', checks: [], results: [] })
    expect((await evaluateOracles(run, { oracles: [() => true, () => undefined] })).outcome).toBe('pass')
    expect((await evaluateOracles(run, { oracles: [() => true, () => 'no'] })).outcome).toBe('fail')
  })

  test('an oracle that breaks fails the outcome, stays distinguishable, and does not stop the others', async () => {
    const ran: string[] = []
    const { outcome, checks, results } = await evaluateOracles(refundRun(49), {
      oracles: [
        {
          name: 'broken',
          fn: () => {
            throw new TypeError('x is undefined')
          },
        },
        {
          name: 'after',
          fn: () => {
            ran.push('after')
          },
        },
      ],
    })
    expect(outcome).toBe('fail')
    expect(ran).toEqual(['after'])
    expect(results.map((r) => r.status)).toEqual(['error', 'pass'])
    expect(checks[0]).toEqual({
      name: 'broken',
      passed: false,
      message: 'oracle broken threw: TypeError: x is undefined',
    })
    // The stored shape stays strict: no status, no error object.
    expect(() => RunSchema.parse({ ...refundRun(49), checks })).not.toThrow()
  })

  test('registered oracles run first, then explicit ones, in order; bare functions get inline names', async () => {
    check('refund-bot', function registered() {})
    const { checks } = await evaluateOracles(refundRun(49), {
      oracles: [() => true, { name: 'named', fn: () => true }, function explicitFn() {}],
    })
    expect(checks.map((c) => c.name)).toEqual(['registered', 'refund-bot#inline1', 'named', 'explicitFn'])
  })

  test('async oracles are awaited, one after the other', async () => {
    const order: string[] = []
    const slow = (name: string, ms: number) => ({
      name,
      fn: async () => {
        await new Promise((resolve) => setTimeout(resolve, ms))
        order.push(name)
        return name === 'b' ? 'b failed' : true
      },
    })
    const { outcome, checks } = await evaluateOracles(refundRun(49), {
      oracles: [slow('a', 15), slow('b', 1)],
    })
    expect(order).toEqual(['a', 'b'])
    expect(outcome).toBe('fail')
    expect(checks[1]).toEqual({ name: 'b', passed: false, message: 'b failed' })
  })

  test('outcomeOf', () => {
    expect(outcomeOf([])).toBe('unknown')
    expect(outcomeOf([{ passed: true }])).toBe('pass')
    expect(outcomeOf([{ passed: true }, { passed: false }])).toBe('fail')
  })
})

describe('applyOracles', () => {
  test('returns a graded copy and leaves the run as it was', async () => {
    const run = refundRun(490)
    const before = structuredClone(run)
    const { run: graded, results } = await applyOracles(run, {
      oracles: [{ name: 'cap', fn: (r) => r.toolCalls('issue_refund').every((c) => c.args.amount <= 49) }],
    })
    expect(run).toEqual(before)
    expect(graded).not.toBe(run)
    expect(graded.outcome).toBe('fail')
    expect(graded.checks).toEqual([{ name: 'cap', passed: false, message: 'oracle cap returned false' }])
    expect(graded.steps).toEqual(run.steps)
    expect(results[0]!.status).toBe('fail')
    expect(RunSchema.safeParse(graded).success).toBe(true)
  })

  test('with no oracle, clears stale checks and sets the outcome to unknown', async () => {
    const run = { ...refundRun(49), outcome: 'pass' as const, checks: [{ name: 'old', passed: true }] }
    const { run: graded } = await applyOracles(run)
    expect(graded.outcome).toBe('unknown')
    expect(graded.checks).toEqual([])
    expect(run.checks).toHaveLength(1)
  })
})
