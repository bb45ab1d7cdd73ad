import type { MatcherState, SyncMatcherResult } from 'vitest'
import { CrashlabError, type Run, type RunView } from '../src/internal.ts'
import type { Fault } from '../src/on-demand.ts'
import { asRunView, plural } from './internal/as-run-view.ts'

/**
 * A run made by `agentCase()` or the `agent` fixture carries its crasher under
 * `Symbol.for('crashlab.crash')` (non-enumerable): it runs the agent again in replays of the run, a
 * fault in place of one recorded step's answer each time. Looked up with `Symbol.for` so that no import
 * ties this file to fixtures/.
 */
const CRASH = Symbol.for('crashlab.crash')

/**
 * Options of `toSurvive`.
 *
 * @example
 * await expect(run).toSurvive({ kind: 'rate_limit' }, { steps: [0, 2] })
 */
export interface SurviveOptions {
  /** The recorded steps to inject at (their indexes), or `'all'` (default): each fault where it fits. */
  steps?: 'all' | readonly number[]
  /**
   * Your own verdict on a variant that finished and passed its oracles: `false`, or a throw (a failed
   * `expect`), means it did not survive. May be async.
   */
  survive?: (run: RunView, fault: Fault) => unknown
}

interface CrashedCell {
  step: number
  stepType: string
  label: string
  outcome: 'survived' | 'failed' | 'diverged'
  detail: string
}

type Crasher = (faults: readonly Fault[], options?: SurviveOptions) => Promise<CrashedCell[]>

/**
 * `await expect(run).toSurvive(fault | faults, { steps, survive })`: the agent survives each fault at
 * each recorded step it fits (a model fault at a model call, a tool fault at a `tool()` call). Each
 * cell runs the agent again in an offline replay of the run with the fault in place of that step's
 * answer (a retry is served from the recording), grades it with the agent's oracles, then `survive`.
 * Passes when no cell failed. A cell that diverged (the agent asked for something the recording does
 * not hold, so it could not go on offline) is neither: it does not fail the matcher, and the message
 * lists it. The failure message lists every failed cell with why. Only a run produced by `agentCase()`
 * or the `agent` fixture can be crashed; faults that fit none of the run's steps are a usage error.
 *
 * @example
 * test('refund', agentCase(refundBot, {
 *   agent: 'refund-bot',
 *   input: 'Refund my order A17',
 *   assert: async (run) => {
 *     await expect(run).toSurvive([{ kind: 'rate_limit' }, { kind: 'server_error' }], { steps: [0] })
 *   },
 * }))
 */
export async function toSurvive(
  this: MatcherState,
  received: unknown,
  faults: Fault | readonly Fault[],
  options: SurviveOptions = {},
): Promise<SyncMatcherResult> {
  const { run } = asRunView(received, 'toSurvive')
  const crasher = (run as { [CRASH]?: unknown })[CRASH]
  if (typeof crasher !== 'function') {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toSurvive: only runs produced by agentCase() or the agent fixture can be crash-tested; run ${run.id} ` +
        `(${run.name}) carries no crasher (it was loaded from a file, built by hand or copied). Assert on ` +
        "the run the test produced, or crash a cassette with crashTest() from 'crashlab/vitest'.",
      { subject: run.id },
    )
  }
  const list = (Array.isArray(faults) ? faults : [faults]) as readonly Fault[]
  if (list.length === 0) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      'toSurvive: give at least one fault, as in { kind: "rate_limit" }',
    )
  }
  const cells = await (crasher as Crasher).call(run, list, options)
  if (cells.length === 0) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toSurvive: none of the faults fits a step of run ${run.id} (${describeSteps(run)}): model faults go ` +
        'to llm steps, tool faults to tool() steps. Give faults of the other kind, or other `steps`.',
      { subject: run.id },
    )
  }
  const hint = this.utils.matcherHint('toSurvive', 'run', 'faults', {
    isNot: this.isNot,
    promise: this.promise,
  })
  const failed = cells.filter((c) => c.outcome === 'failed')
  const diverged = cells.filter((c) => c.outcome === 'diverged')
  const survived = cells.length - failed.length - diverged.length
  const tally = `${survived} of ${plural(cells.length, 'cell')} survived, ${failed.length} failed, ${diverged.length} diverged`
  const divergedLines = diverged.length
    ? `\nDiverged (not a failure: the agent asked for what the recording lacks):\n${diverged.map(line).join('\n')}`
    : ''
  if (failed.length > 0) {
    return {
      pass: false,
      message: () =>
        `${hint}\n\nExpected the agent to survive every fault, but ${tally}:\n${failed.map(line).join('\n')}${divergedLines}`,
    }
  }
  return {
    pass: true,
    message: () => `${hint}\n\nExpected the agent not to survive, but ${tally}.${divergedLines}`,
  }
}

function line(cell: CrashedCell): string {
  const mark = cell.outcome === 'failed' ? '✖' : '↷'
  return `  ${mark} step ${cell.step} (${cell.stepType}) × ${cell.label}: ${cell.detail}`
}

function describeSteps(run: Run): string {
  const llm = run.steps.filter((s) => s.type === 'llm').length
  const tools = run.steps.filter((s) => s.type === 'tool').length
  return `${plural(llm, 'llm step')}, ${plural(tools, 'tool step')}`
}
