import type { Run } from '../../case/schema/run.ts'
import type { Finding } from '../../case/schema/step.ts'
import { createDetectors } from './create-detectors.ts'
import type { ChecksOptions } from './options.ts'

/**
 * Runs every runtime detector over a finished (or stored) run and returns its findings: how the run
 * behaved, never whether it passed (that is the oracles' job). Each problem is one finding, at the
 * highest severity it reached, with the steps it concerns and verbatim quotes from them. The same as
 * feeding each step to `createDetectors(options).observe` and reading `findings()`.
 *
 * @example
 * import { detectFindings } from 'crashlab'
 *
 * const findings = detectFindings(run, { maxSteps: 20, maxCostUsd: 0.1 })
 * // [{ kind: 'tool_error_streak', severity: 'warn', steps: [3, 5, 7],
 * //    message: '3 tool calls failed in a row (get_order)', evidence: ['no order Z99', 'no order Z97'] }]
 * const worst = findings.some((f) => f.severity === 'critical' || f.severity === 'error')
 */
export function detectFindings(run: Run, options: ChecksOptions = {}): Finding[] {
  const detectors = createDetectors(options)
  for (const step of run.steps) detectors.observe(step, run)
  return detectors.findings()
}
