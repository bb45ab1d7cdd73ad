import type { MatcherState, SyncMatcherResult } from 'vitest'
import {
  CrashlabError,
  compare,
  formatDifferences,
  isCrashlabError,
  type JsonValue,
  type Run,
  type Step,
  viewRun,
} from '../src/internal.ts'
import { asRunView, plural } from './internal/as-run-view.ts'

/**
 * A run made by `agentCase()` or the `agent` fixture carries its replayer under
 * `Symbol.for('crashlab.replay')` (non-enumerable, so the run still prints and compares as data). The
 * matcher re-executes the run offline against its own recording and compares what came out with what
 * went in, step by step: the request hash of each LLM step, the name and arguments of each tool step,
 * the method and URL of other HTTP exchanges; then the merged tool calls, how the run ended and its
 * output. The symbol is looked up with `Symbol.for` so that no import ties this file to fixtures/.
 */

const REPLAY = Symbol.for('crashlab.replay')

/**
 * Options passed to the run's replayer (those of the fixture's `ReplayOptions`).
 *
 * @example
 * await expect(run).toReplayExactly({ allowUnused: true })
 */
export interface ReplayExactlyOptions {
  /** Let the replay end with recorded steps left unused. Default false: an exact replay uses them all. */
  allowUnused?: boolean
  /** Replay streamed events at their recorded times. */
  replayTiming?: boolean
}

type Replayer = (options?: ReplayExactlyOptions) => Promise<Run>

/**
 * `await expect(run).toReplayExactly()`: replaying the run offline makes the same LLM requests (request
 * hashes, in order), the same tool calls (name and arguments) and the same output. A failure shows the
 * first divergence, or the replayer's own error (a `DivergenceError` names the changed request fields).
 * Only runs produced by `agentCase()` or the `agent` fixture can be replayed; any other run is a usage
 * error, in the `.not` form too.
 *
 * @example
 * const run = await agent(input)
 * await expect(run).toReplayExactly()
 */
export async function toReplayExactly(
  this: MatcherState,
  received: unknown,
  options?: ReplayExactlyOptions,
): Promise<SyncMatcherResult> {
  const { run } = asRunView(received, 'toReplayExactly')
  const replayer = (run as { [REPLAY]?: unknown })[REPLAY]
  if (typeof replayer !== 'function') {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toReplayExactly: only runs produced by agentCase() or the agent fixture can be replayed; run ${run.id} (${run.name}) ` +
        'carries no replayer (it was loaded from a file, built by hand or copied, which drops the replayer). ' +
        'Assert on the run the test produced, or compare a loaded run with toMatchAgentCase.',
      { subject: run.id },
    )
  }
  const { utils } = this
  const hint = utils.matcherHint('toReplayExactly', 'run', '', {
    isNot: this.isNot,
    promise: this.promise,
  })
  let replayed: Run
  try {
    replayed = await (replayer as Replayer).call(run, options)
  } catch (err) {
    const divergence =
      isCrashlabError(err, 'E_DIVERGENCE') || (err as Error | undefined)?.name === 'DivergenceError'
    const what = divergence ? 'the replay diverged' : 'the replay failed'
    const text = err instanceof Error ? err.message : String(err)
    return {
      pass: false,
      message: () => `${hint}\n\nExpected the run to replay exactly, but ${what}:\n${text}`,
    }
  }
  const divergence = firstDivergence(run, replayed)
  if (divergence === null) {
    const llm = run.steps.filter((s) => s.type === 'llm').length
    const tools = viewRun(run).toolCalls().length
    return {
      pass: true,
      message: () =>
        `${hint}\n\nExpected the replay to differ, but it reproduced the run exactly: ` +
        `${plural(llm, 'LLM request')}, ${plural(tools, 'tool call')}, the same output.`,
    }
  }
  return { pass: false, message: () => `${hint}\n\nExpected the run to replay exactly, but ${divergence}` }
}

/** What a step asked for, reduced to what must repeat exactly in a replay. */
function signature(step: Step): JsonValue {
  if (step.type === 'llm') return { type: 'llm', requestHash: step.request.requestHash }
  if (step.type === 'tool') return { type: 'tool', name: step.name, args: step.args }
  return { type: 'http', method: step.request.method, url: step.request.url }
}

function describeStep(step: Step | undefined): string {
  if (step === undefined) return 'nothing'
  if (step.type === 'llm') return `an LLM request ${step.request.requestHash}`
  if (step.type === 'tool') return `tool ${step.name}(${JSON.stringify(step.args)})`
  return `http ${step.request.method} ${step.request.url}`
}

/** The first difference between the recorded and the replayed run, in words; null when there is none. */
function firstDivergence(recorded: Run, replayed: Run): string | null {
  const n = Math.max(recorded.steps.length, replayed.steps.length)
  for (let i = 0; i < n; i++) {
    const a = recorded.steps[i]
    const b = replayed.steps[i]
    if (a !== undefined && b !== undefined && compare(signature(a), signature(b)).equal) continue
    const head = `the replay diverged at step ${i}: recorded ${describeStep(a)}, replayed ${describeStep(b)}.`
    if (a === undefined || b === undefined || a.type !== b.type) return head
    return `${head}\n${formatDifferences(compare(signature(a), signature(b)).differences)}`
  }
  const calls = (r: Run) =>
    viewRun(r)
      .toolCalls()
      .map((c) => ({ name: c.name, args: c.args as JsonValue }))
  const toolDiff = compare(calls(recorded), calls(replayed))
  if (!toolDiff.equal) {
    return `the replay made different tool calls (expected is the recording):\n${formatDifferences(toolDiff.differences)}`
  }
  const ending = (r: Run): JsonValue => ({ status: r.status, error: r.error?.message ?? null })
  const endDiff = compare(ending(recorded), ending(replayed))
  if (!endDiff.equal) return `the replay ended differently:\n${formatDifferences(endDiff.differences)}`
  const outDiff = compare(recorded.output, replayed.output)
  if (!outDiff.equal) {
    return `the replay returned a different output (expected is the recording):\n${formatDifferences(outDiff.differences)}`
  }
  return null
}
