import type { ChecksOptions } from '../../checks/detectors/options.ts'
import type { PriceOverride } from '../../cost/index.ts'
import type { AgentRunPlan } from '../../harness/types.ts'
import type { Redactor } from '../../redact/types.ts'
import { CaptureJournal } from './capture-journal.ts'
import { type StoreOption, storeFor } from './store-for.ts'

/** What `record()` and `startCapture()` share of their options. */
export interface ProductionOptions {
  config?: string | false
  checks?: ChecksOptions
  prices?: Record<string, PriceOverride>
  redactor?: Redactor
  store?: StoreOption
  tags?: string[]
}

/**
 * The part of an agent-run plan that production capture (`record()`, `startCapture()`) shares: the
 * config file read the way the Vitest plugin reads it (the nearer setting wins), and the run journaled
 * to the store step by step.
 *
 * @example
 * const ended = await runAgent({ ...productionPlan(options), session: { mode: 'record' }, finishRule: 'record' }, fn)
 */
export function productionPlan(
  options: ProductionOptions,
): Pick<AgentRunPlan<unknown>, 'config' | 'checks' | 'prices' | 'redactor' | 'journal'> {
  return {
    config: options.config,
    checks: options.checks,
    prices: options.prices,
    redactor: options.redactor,
    journal: async ({ redactor }) => {
      const store = await storeFor(options.store, { config: options.config })
      return store ? new CaptureJournal(store, redactor, options.tags) : undefined
    },
  }
}
