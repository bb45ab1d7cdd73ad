import type { Run } from '../case/schema/run.ts'
import { type PriceOptions, priceRun } from '../cost/index.ts'
import { detectFindings } from './detectors/detect-findings.ts'
import type { ChecksOptions } from './detectors/options.ts'

/** What grades a run after the fact: the project's runtime checks and prices (its config's `checks` and `prices`). */
export interface GradeOptions {
  checks?: ChecksOptions | undefined
  prices?: PriceOptions['prices']
}

/**
 * A run graded as a recording in the project would be: priced from the catalog (and `prices`), its
 * findings those of the runtime checks over its steps. For runs that did not come through a Session (an
 * imported or received trace, a captured one) and for `crashlab check`.
 *
 * @example
 * const { config } = await loadConfig()
 * store.save(gradeRun(imported, config))
 */
export function gradeRun(run: Run, options: GradeOptions = {}): Run {
  const priced = priceRun(run, { prices: options.prices })
  return { ...priced, findings: detectFindings(priced, options.checks) }
}
