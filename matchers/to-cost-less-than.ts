import type { MatcherState, SyncMatcherResult } from 'vitest'
import { CrashlabError, formatUsd, type LlmStep } from '../src/internal.ts'
import { asRunView } from './internal/as-run-view.ts'

/**
 * `expect(run).toCostLessThan(usd)`: the run's estimated cost (`run.cost.usd`, the sum of its priced
 * LLM steps) is below `usd`. A run whose cost is unknown (a model without a price: crashlab never
 * guesses) cannot be judged either way, so the matcher throws, naming the unpriced models and how to
 * price them; so does a run with some steps unpriced, whose sum would understate the cost. A failure
 * shows the costliest steps.
 *
 * @example
 * expect(run).toCostLessThan(0.05)
 * expect(expensiveRun).not.toCostLessThan(0.001)
 */
export function toCostLessThan(this: MatcherState, received: unknown, usd: number): SyncMatcherResult {
  const { run } = asRunView(received, 'toCostLessThan')
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toCostLessThan(usd) needs a limit in US dollars ≥ 0, as in toCostLessThan(0.05); got ${JSON.stringify(usd)}.`,
    )
  }
  const llm = run.steps.filter((s): s is LlmStep => s.type === 'llm')
  const unpriced = llm.filter((s) => s.response?.normalized?.usage && !s.cost)
  if (!run.cost || unpriced.length > 0) {
    const models = [...new Set(unpriced.map(modelOf))]
    const why =
      models.length > 0
        ? `no price is known for ${models.map((m) => JSON.stringify(m)).join(', ')}`
        : 'it has no priced LLM step'
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toCostLessThan: the run's cost is unknown (${why}); crashlab never guesses a price. Set one with ` +
        "setPrice('<model>', { input, output }) or the config file's `prices`, per million tokens.",
    )
  }
  const actual = run.cost.usd
  const pass = actual < usd
  const { utils } = this
  const hint = utils.matcherHint('toCostLessThan', 'run', 'usd', { isNot: this.isNot, promise: this.promise })
  const message = (): string => {
    const costly = [...llm]
      .sort((a, b) => (b.cost?.usd ?? 0) - (a.cost?.usd ?? 0))
      .slice(0, 5)
      .map((s) => `  step ${s.index} ${modelOf(s)}: ${formatUsd(s.cost?.usd ?? 0)}`)
    const source = run.cost?.catalog
      ? `\n(prices: ${run.cost.catalog}${run.cost.catalogVersion ? ` ${run.cost.catalogVersion}` : ''})`
      : ''
    return pass
      ? `${hint}\n\nExpected the run to cost ${utils.EXPECTED_COLOR(formatUsd(usd))} or more, but it cost ${utils.RECEIVED_COLOR(formatUsd(actual))}.${source}`
      : `${hint}\n\nExpected the run to cost less than ${utils.EXPECTED_COLOR(formatUsd(usd))}, but it cost ${utils.RECEIVED_COLOR(formatUsd(actual))}; the costliest steps:\n${costly.join('\n')}${source}`
  }
  return { pass, message }
}

function modelOf(step: LlmStep): string {
  return step.response?.normalized?.model ?? step.request.normalized?.model ?? step.provider
}
