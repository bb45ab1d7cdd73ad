import type { Outcome, Verdict } from '../../case/schema/run.ts'
import type { Severity } from '../../case/schema/step.ts'
import { pc } from '../../colors.ts'

const ORDER: readonly Severity[] = ['critical', 'error', 'warn', 'info']

/** `1 critical, 2 warn`, worst first; empty when there are none. Coloured by severity. */
export function findingsText(findings: Record<Severity, number>): string {
  return ORDER.filter((s) => findings[s] > 0)
    .map((s) => colorSeverity(s, `${findings[s]} ${s}`))
    .join(', ')
}

/** A severity's colour: red for critical and error, yellow for warn, dim for info. */
export function colorSeverity(severity: Severity, text: string = severity): string {
  if (severity === 'critical') return pc.bold(pc.red(text))
  if (severity === 'error') return pc.red(text)
  if (severity === 'warn') return pc.yellow(text)
  return pc.dim(text)
}

/** `pass` in green, `fail` in red, `unknown` dim. */
export function outcomeText(outcome: Outcome): string {
  if (outcome === 'pass') return pc.green(outcome)
  if (outcome === 'fail') return pc.red(outcome)
  return pc.dim(outcome)
}

/** A verify verdict: green when the fix works (`VERIFIED` bold), red bold for `REJECTED`, yellow otherwise. */
export function verdictText(verdict: Verdict): string {
  if (verdict === 'VERIFIED') return pc.bold(pc.green(verdict))
  if (verdict === 'LIKELY') return pc.green(verdict)
  if (verdict === 'REJECTED') return pc.bold(pc.red(verdict))
  return pc.yellow(verdict)
}
