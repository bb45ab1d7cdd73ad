import type { MatcherState } from 'vitest'
import type { Run } from '../../src/internal.ts'

/**
 * Which test a baseline belongs to. A run made by `agentCase` or the `agent` fixture carries its test
 * under `Symbol.for('crashlab.test')` (fixtures/replay-symbol.ts): that is the answer, whatever `expect`
 * the matcher was called through. Vitest's global `expect` keeps one state for the whole file, so under
 * `test.concurrent` its test name and task are those of whichever test touched it last; only a run with
 * no test of its own (built by hand, loaded from a file) falls back to the matcher's state, which is
 * right in a sequential test or through the test's own `ctx.expect`. The symbol is looked up with
 * `Symbol.for` so that no import ties the matchers to fixtures/.
 */

const TEST_OF_RUN = Symbol.for('crashlab.test')

/**
 * A test as a baseline sees it: where its file is, its full name, and its task id when known.
 *
 * @example
 * const test: BaselineTest = { file: '/repo/refund.test.ts', name: 'refund > happy path', id: '-1008553841_0_0' }
 */
export interface BaselineTest {
  /** The absolute path of the test file. */
  file: string
  /** The test's full name, suites included. */
  name: string
  /** The Vitest task id, the key of the snapshot counters; undefined when only a name is known. */
  id: string | undefined
}

/**
 * The test whose baseline `run` is compared with: the run's own test, else the test of the matcher's
 * state, else undefined (outside a test).
 *
 * @example
 * const test = baselineTestOf(run, this)
 * if (test) defaultBaselinePath(test.file, test.name)
 */
export function baselineTestOf(
  run: Run,
  state: Pick<MatcherState, 'testPath' | 'currentTestName'> & { task?: { id: string } | undefined },
): BaselineTest | undefined {
  const own = (run as { [TEST_OF_RUN]?: Partial<BaselineTest> })[TEST_OF_RUN]
  if (typeof own?.file === 'string' && typeof own.name === 'string') {
    return { file: own.file, name: own.name, id: typeof own.id === 'string' ? own.id : undefined }
  }
  if (!state.testPath || !state.currentTestName) return undefined
  return { file: state.testPath, name: state.currentTestName, id: state.task?.id }
}
