import { afterEach, describe, expect, test } from 'vitest'
import { isCrashlabError } from '../../errors.ts'
import { buildAgentRun } from '../internal/test-agent-run.ts'
import { check } from './check.ts'
import { evaluateOracles } from './evaluate-oracles.ts'
import { clearOracles, registeredOracles } from './oracle-registry.ts'
import type { OracleFn } from './types.ts'

afterEach(() => clearOracles())

const run = buildAgentRun([{ llm: { text: 'Refunded $49.' } }])

describe('check: names', () => {
  test("defaults to the function's name", () => {
    check('refund-bot', function refundNotAboveTotal() {})
    expect(registeredOracles('refund-bot').map((o) => o.name)).toEqual(['refundNotAboveTotal'])
  })

  test('numbers anonymous oracles per agent', () => {
    check('refund-bot', () => true)
    check('refund-bot', () => true)
    check('triage', () => true)
    expect(registeredOracles('refund-bot').map((o) => o.name)).toEqual(['refund-bot#1', 'refund-bot#2'])
    expect(registeredOracles('triage').map((o) => o.name)).toEqual(['triage#1'])
  })

  test('an explicit name wins', () => {
    check('refund-bot', function named() {}, { name: 'refund-not-above-total' })
    expect(registeredOracles('refund-bot').map((o) => o.name)).toEqual(['refund-not-above-total'])
  })

  test('a second oracle under a taken name is refused; the same function again replaces itself', () => {
    const fn: OracleFn = () => true
    check('refund-bot', fn, { name: 'policy' })
    check('refund-bot', fn, { name: 'policy' })
    expect(registeredOracles('refund-bot')).toHaveLength(1)
    let thrown: unknown
    try {
      check('refund-bot', () => false, { name: 'policy' })
    } catch (err) {
      thrown = err
    }
    expect(isCrashlabError(thrown, 'E_ORACLE_DUPLICATE')).toBe(true)
    expect((thrown as Error).message).toContain('agent "refund-bot" already has an oracle named "policy"')
  })

  test('refuses what is not an agent name or a function', () => {
    expect(() => check('', () => true)).toThrow(/needs the agent's name first/)
    expect(() => check('refund-bot', 'nope' as unknown as OracleFn)).toThrow(/needs a function/)
    expect(() => check('refund-bot', () => true, { name: '' })).toThrow(/needs a non-empty name/)
  })
})

describe('check: registry', () => {
  test("runs only the oracles of the run's agent", async () => {
    const seen: string[] = []
    check('refund-bot', () => {
      seen.push('refund-bot')
    })
    check('triage', () => {
      seen.push('triage')
      return false
    })
    const { outcome, checks } = await evaluateOracles(run, { agent: 'refund-bot' })
    expect(seen).toEqual(['refund-bot'])
    expect(outcome).toBe('pass')
    expect(checks).toEqual([{ name: 'refund-bot#1', passed: true }])
  })

  test("the agent defaults to the run's name", async () => {
    check('refund-bot', () => 'always fails')
    expect((await evaluateOracles(run)).outcome).toBe('fail')
    expect((await evaluateOracles({ ...run, name: 'triage' })).outcome).toBe('unknown')
  })

  test('the returned function unregisters that oracle only', async () => {
    const off = check('refund-bot', function failing() {
      return false
    })
    check('refund-bot', function passing() {})
    expect((await evaluateOracles(run)).outcome).toBe('fail')
    off()
    off() // twice is harmless
    expect(registeredOracles('refund-bot').map((o) => o.name)).toEqual(['passing'])
    expect((await evaluateOracles(run)).outcome).toBe('pass')
  })

  test('an old unregister function does not remove a newer registration of the same oracle', () => {
    const fn: OracleFn = () => true
    const offOld = check('refund-bot', fn, { name: 'policy' })
    check('refund-bot', fn, { name: 'policy' })
    offOld()
    expect(registeredOracles('refund-bot').map((o) => o.name)).toEqual(['policy'])
  })

  test('is shared by every copy of the module in the process', () => {
    check('refund-bot', () => true, { name: 'shared' })
    const table = (globalThis as Record<symbol, { byAgent: Map<string, unknown[]> }>)[
      Symbol.for('crashlab.oracles')
    ]
    expect(table?.byAgent.get('refund-bot')).toHaveLength(1)
  })
})
