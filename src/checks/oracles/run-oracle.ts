import { CrashlabError } from '../../errors.ts'
import type { RunView } from '../run-view.ts'
import type { Oracle, OracleResult } from './types.ts'

/**
 * Options of `runOracle`.
 *
 * @example
 * await runOracle(oracle, viewRun(run), { timeoutMs: 5_000 })
 */
export interface RunOracleOptions {
  /** Give up on an oracle that has not settled after this many milliseconds (an error of the oracle). */
  timeoutMs?: number
}

/**
 * Runs one oracle on a run and says how it went. Never throws because of the oracle: a thrown assertion
 * (an error named `AssertionError`, as Vitest's `expect`, chai and node:assert throw) is a failure with
 * its message; anything else thrown, a timeout, or a return value that is not a verdict is an error of
 * the oracle (`status: 'error'`, message `oracle <name> threw: …`).
 *
 * @example
 * const result = await runOracle({ name: 'no-refund', fn: (run) => run.toolCalls('issue_refund').length === 0 }, viewRun(run))
 * result // { name: 'no-refund', passed: false, message: 'oracle no-refund returned false', status: 'fail' }
 */
export async function runOracle(
  oracle: Oracle,
  view: RunView,
  options: RunOracleOptions = {},
): Promise<OracleResult> {
  const { name } = oracle
  let value: unknown
  try {
    value = await settle(() => oracle.fn(view), options.timeoutMs)
  } catch (thrown) {
    if (isAssertionError(thrown)) return { name, passed: false, message: thrown.message, status: 'fail' }
    return oracleError(name, `oracle ${name} threw: ${describeThrown(thrown)}`, thrown)
  }
  if (value === true || value === undefined || value === null) return { name, passed: true, status: 'pass' }
  if (value === false)
    return { name, passed: false, message: `oracle ${name} returned false`, status: 'fail' }
  if (typeof value === 'string') {
    return { name, passed: false, message: value === '' ? `oracle ${name} failed` : value, status: 'fail' }
  }
  // A number or an object is not a verdict: guessing whether 0 or {} means "fail" would hide a bug in the oracle.
  return oracleError(
    name,
    `oracle ${name} returned ${describeValue(value)}: return true or nothing to pass, false or a message to fail`,
  )
}

/** Calls `fn` and awaits it, turning a synchronous throw into a rejection and bounding the wait. */
async function settle(fn: () => unknown, timeoutMs: number | undefined): Promise<unknown> {
  const pending = Promise.resolve().then(fn)
  if (timeoutMs === undefined) return pending
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OracleTimeout(`did not settle within ${timeoutMs} ms`)), timeoutMs)
  })
  try {
    return await Promise.race([pending, timeout])
  } finally {
    clearTimeout(timer)
  }
}

class OracleTimeout extends Error {
  override readonly name = 'OracleTimeout'
}

function isAssertionError(value: unknown): value is Error {
  // By name, not by class: Vitest, chai and node:assert each have their own AssertionError class, and the
  // user's copy of Vitest is not one crashlab may import.
  return value instanceof Error && value.name === 'AssertionError'
}

function oracleError(name: string, message: string, cause?: unknown): OracleResult {
  const error = new CrashlabError(
    'E_ORACLE_ERROR',
    `${message}; this is a bug in the oracle, not a failure of the run (the cause has its stack)`,
    {
      cause,
      subject: name,
    },
  )
  return { name, passed: false, message, status: 'error', error }
}

function describeThrown(thrown: unknown): string {
  if (thrown instanceof OracleTimeout) return thrown.message
  if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`
  return `${describeValue(thrown)} (not an Error)`
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value)
  if (value === null || value === undefined) return String(value)
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  return 'an object'
}
