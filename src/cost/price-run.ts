import type { Run } from '../case/schema/run.ts'
import type { Cost, LlmStep, Step } from '../case/schema/step.ts'
import { CATALOG } from './catalog.ts'
import { createPricer, type PriceOptions } from './internal/pricer.ts'
import { roundUsd } from './internal/round-usd.ts'

/**
 * A copy of the run with every LLM step priced (`step.cost`, see `priceStep`) and `run.cost` set to
 * their sum. The run passed in is not changed; the copy shares the steps that are not LLM calls.
 *
 * `run.cost` is null when no step has a cost. When some steps are priced and others are not (a model
 * the catalog does not know), it is the sum of the priced ones, a lower bound: `unpricedSteps(run)`
 * names the others, and `toCostLessThan` refuses to judge such a run. Its `catalog` names where the
 * prices came from (`@pydantic/genai-prices`, or e.g. `@pydantic/genai-prices + local` when mixed);
 * each step keeps its own `priceDate`. Steps are always priced again, so a cost read from a cassette
 * is replaced by today's rules for the same catalog version and dates.
 *
 * @example
 * const priced = priceRun(run)
 * console.log(formatUsd(priced.cost?.usd ?? 0), unpricedSteps(priced))
 */
export function priceRun(run: Run, options?: PriceOptions): Run {
  const price = createPricer(options)
  const steps: Step[] = run.steps.map((step) => (step.type === 'llm' ? { ...step, cost: price(step) } : step))
  return { ...run, steps, cost: totalCost(steps) }
}

function totalCost(steps: readonly Step[]): Cost | null {
  const costs = steps.flatMap((s) => (s.type === 'llm' && s.cost ? [s.cost] : []))
  if (costs.length === 0) return null
  const usd = roundUsd(costs.reduce((sum, cost) => sum + cost.usd, 0))
  const catalogs = [...new Set(costs.map((c) => c.catalog ?? 'unknown'))].sort()
  const total: Cost = { usd, catalog: catalogs.join(' + ') }
  if (catalogs.includes(CATALOG.name)) total.catalogVersion = CATALOG.version
  return total
}

/**
 * The indexes of the LLM steps that reported usage but have no cost: the steps a run's total leaves
 * out. Steps without usage are not counted: there is nothing to price.
 *
 * @example
 * const priced = priceRun(run)
 * if (unpricedSteps(priced).length > 0) console.warn('cost is a lower bound')
 */
export function unpricedSteps(run: Run): number[] {
  return run.steps
    .filter((s): s is LlmStep => s.type === 'llm' && !!s.response?.normalized?.usage && !s.cost)
    .map((s) => s.index)
}
