import assert from 'node:assert'
import { describe, expect, test } from 'vitest'
import { isCrashlabError } from '../../errors.ts'
import { buildAgentRun } from '../internal/test-agent-run.ts'
import { viewRun } from '../run-view.ts'
import { runOracle } from './run-oracle.ts'
import type { OracleFn } from './types.ts'

const view = viewRun(buildAgentRun([{ llm: { text: 'Refunded $49.' } }]))
const run = (fn: OracleFn, timeoutMs?: number) => runOracle({ name: 'policy', fn }, view, { timeoutMs })

describe('runOracle: verdicts', () => {
  test.each([
    ['true', () => true],
    ['undefined', () => undefined],
    ['null', () => null],
    ['no return statement', () => {}],
  ] as Array<[string, OracleFn]>)('passes on %s', async (_, fn) => {
    expect(await run(fn)).toEqual({ name: 'policy', passed: true, status: 'pass' })
  })

  test('fails on false, with a message naming the oracle', async () => {
    expect(await run(() => false)).toEqual({
      name: 'policy',
      passed: false,
      message: 'oracle policy returned false',
      status: 'fail',
    })
  })

  test('fails on a string, which is the message', async () => {
    expect(await run(() => 'refunded 490')).toEqual({
      name: 'policy',
      passed: false,
      message: 'refunded 490',
      status: 'fail',
    })
    expect((await run(() => '')).message).toBe('oracle policy failed')
  })

  test('gets the view: it can read the run', async () => {
    const seen = await run((r) => r.finalMessage === 'Refunded $49.' || `final message was ${r.finalMessage}`)
    expect(seen.status).toBe('pass')
  })
})

describe('runOracle: thrown assertions are failures', () => {
  test('Vitest expect keeps its message', async () => {
    const result = await run(() => {
      expect(490).toBeLessThanOrEqual(49)
    })
    expect(result).toEqual({
      name: 'policy',
      passed: false,
      message: 'expected 490 to be less than or equal to 49',
      status: 'fail',
    })
  })

  test('node:assert keeps its message', async () => {
    const result = await run(() => assert.ok(false, 'refunded 490'))
    expect(result).toMatchObject({ passed: false, status: 'fail', message: 'refunded 490' })
    expect(result.error).toBeUndefined()
  })

  test('a rejected async assertion is a failure too', async () => {
    const result = await run(async () => {
      await Promise.resolve()
      expect({ amount: 490 }).toEqual({ amount: 49 })
    })
    expect(result).toMatchObject({
      status: 'fail',
      message: 'expected { amount: 490 } to deeply equal { amount: 49 }',
    })
  })
})

describe('runOracle: a broken oracle is an error, not a failure', () => {
  test('a TypeError is reported as an oracle error, with the cause kept', async () => {
    const result = await run((r) => (r.output as unknown as { amount: number }).amount > 1)
    expect(result.status).toBe('error')
    expect(result.passed).toBe(false)
    expect(result.message).toMatch(/^oracle policy threw: TypeError: Cannot read properties of null/)
    expect(isCrashlabError(result.error, 'E_ORACLE_ERROR')).toBe(true)
    expect(result.error!.cause).toBeInstanceOf(TypeError)
    expect(result.error!.message).toContain('[crashlab] oracle policy threw: TypeError')
  })

  test('a thrown non-Error value is an oracle error', async () => {
    const result = await run(() => {
      throw 'boom'
    })
    expect(result).toMatchObject({ status: 'error', message: 'oracle policy threw: "boom" (not an Error)' })
  })

  test('an error merely called "Assertion" something else is still an oracle error', async () => {
    class AssertionFailure extends Error {
      override name = 'AssertionFailure'
    }
    const result = await run(() => {
      throw new AssertionFailure('nope')
    })
    expect(result.status).toBe('error')
  })

  test('a return value that is not a verdict is an oracle error', async () => {
    const result = await run((() => 0) as unknown as OracleFn)
    expect(result).toMatchObject({ status: 'error', passed: false })
    expect(result.message).toMatch(/^oracle policy returned 0: return true or nothing to pass/)
  })

  test('an oracle that never settles times out as an oracle error', async () => {
    const result = await run(() => new Promise<boolean>(() => {}), 20)
    expect(result).toMatchObject({
      status: 'error',
      message: 'oracle policy threw: did not settle within 20 ms',
    })
  })

  test('async oracles are awaited', async () => {
    const slow = (value: boolean | string) => () =>
      new Promise<boolean | string>((resolve) => setTimeout(() => resolve(value), 5))
    expect((await run(slow(true))).status).toBe('pass')
    expect(await run(slow('late refund'))).toMatchObject({ status: 'fail', message: 'late refund' })
  })
})
