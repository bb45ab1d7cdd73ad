import { loadAgentCase } from '../case/agentcase/load-agent-case.ts'
import type { AgentCase } from '../case/agentcase/schema.ts'
import { validateAgentCase } from '../case/agentcase/validate-agent-case.ts'
import { checkMockSource, listInteractions } from './internal/interactions.ts'
import { ReplayCursor } from './internal/replay-cursor.ts'
import type { MockReplayContext, MockReplayResult, RunMockReplayOptions } from './mock-replay-context.ts'

/**
 * Mock replay runs the application's own code again against a captured case, with every model and
 * tool interaction served from the case as data. Only the function the caller passes is run: nothing
 * is ever imported or evaluated from the case, no provider is called, no recorded tool is run. That
 * function is ordinary code and is not sandboxed; the guarantee covers what it routes through the context.
 */

/**
 * Runs `entrypoint` with a `MockReplayContext` over the recorded interactions of a case (a path, or an
 * already loaded case, which is validated again) and resolves to what it returned. It fails closed,
 * each failure a `CrashlabError` whose message names the case, the interaction and its event:
 *
 * - `E_MOCK_MISMATCH`: the code asked for another kind of interaction than the next recorded one, or
 *   its request differs from the recorded one (the message lists each differing field);
 * - `E_MOCK_EXTRA`: the code asked for more interactions than the case records;
 * - `E_MOCK_MISSING`: the next recorded request has no recorded answer (or only a partial one);
 * - `E_MOCK_UNCONSUMED`: the code returned before asking for every recorded interaction;
 * - `E_MOCK_SOURCE`: the case cannot be replayed at all (incomplete capture, a live replay, two answers
 *   to one request).
 *
 * A contract failure wins even when the code caught it. When the code throws an error of its own and
 * kept the contract, that error is rethrown unchanged: a captured failure reproduces as itself.
 *
 * @example
 * import { runMockReplay } from 'crashlab'
 *
 * const { value } = await runMockReplay('failure.agentcase', async (ctx) => {
 *   const output = ctx.modelResponse({ provider: 'local', model: 'tiny-7b', input: { prompt: 'hello' } })
 *   const order = ctx.toolResult('get_order', { id: 'A17' })
 *   return { output, order: order.result }
 * })
 */
export async function runMockReplay<T>(
  caseOrPath: AgentCase | string,
  entrypoint: (ctx: MockReplayContext) => T | PromiseLike<T>,
  options: RunMockReplayOptions = {},
): Promise<MockReplayResult<T>> {
  if (typeof entrypoint !== 'function') {
    throw new TypeError(
      `[crashlab] runMockReplay(case, entrypoint) needs the function to run; got ${typeof entrypoint}. The entrypoint is never read from the case.`,
    )
  }
  const isPath = typeof caseOrPath === 'string'
  const c = isPath ? loadAgentCase(caseOrPath) : validateAgentCase(caseOrPath, { source: options.source })
  const source = isPath ? caseOrPath : (options.source ?? `case ${c.case_id}`)
  const allowIncomplete = options.allowIncomplete ?? false
  checkMockSource(c, source, { allowIncomplete, projection: false })
  const cursor = new ReplayCursor(listInteractions(c), {
    source,
    allowIncomplete,
    floatTolerance: options.floatTolerance,
  })
  let value: T
  try {
    value = await entrypoint(cursor)
  } catch (error) {
    // The code's error is often a consequence of the broken contract (an answer it never got).
    throw cursor.failure ?? error
  } finally {
    cursor.end()
  }
  if (cursor.failure) throw cursor.failure
  cursor.assertConsumed()
  return {
    value,
    consumedModelInteractions: cursor.consumedModel,
    consumedToolInteractions: cursor.consumedTool,
    caseId: c.case_id,
    executionId: c.execution_id,
  }
}
