import type { MatcherState, SyncMatcherResult } from 'vitest'
import { CrashlabError, type Finding, SEVERITIES, type Severity } from '../src/internal.ts'
import { asRunView, plural } from './internal/as-run-view.ts'

/**
 * A run passes when every oracle it was graded by passed and no runtime finding is at or above the
 * chosen severity. A run with no check at all passes (nothing was asserted about it; the runtime
 * findings still count): a missing oracle is a different mistake, caught with `requireChecks`, and the
 * `.not` message says when a pass was only this vacuous one.
 */

/**
 * Options of `toPassChecks`.
 *
 * @example
 * expect(run).toPassChecks({ minSeverity: 'warn', requireChecks: true })
 */
export interface PassChecksOptions {
  /** Findings at or above this severity fail the run. Default `error` (`info` < `warn` < `error` < `critical`). */
  minSeverity?: Severity
  /** Fail a run that no oracle graded (`run.checks` empty). Default false. */
  requireChecks?: boolean
}

const RANK: Record<Severity, number> = { info: 0, warn: 1, error: 2, critical: 3 }
const SHOWN = 20

/**
 * `expect(run).toPassChecks()`: every check in `run.checks` passed and no finding in `run.findings` is
 * at or above `minSeverity`. A failure lists each failed check (name and message) and each finding
 * (kind, severity, steps, message, evidence).
 *
 * @example
 * expect(run).toPassChecks()
 * expect(run).toPassChecks({ minSeverity: 'warn' })
 * expect(brokenRun).not.toPassChecks()
 */
export function toPassChecks(
  this: MatcherState,
  received: unknown,
  options: PassChecksOptions = {},
): SyncMatcherResult {
  const { run } = asRunView(received, 'toPassChecks')
  const minSeverity = options.minSeverity ?? 'error'
  if (!SEVERITIES.includes(minSeverity)) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toPassChecks: minSeverity must be one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(minSeverity)}.`,
    )
  }
  const failed = run.checks.filter((c) => !c.passed)
  const findings = run.findings.filter((f) => RANK[f.severity] >= RANK[minSeverity])
  const unchecked = options.requireChecks === true && run.checks.length === 0
  const pass = failed.length === 0 && findings.length === 0 && !unchecked
  const { utils } = this
  const hint = utils.matcherHint('toPassChecks', 'run', 'options', {
    isNot: this.isNot,
    promise: this.promise,
  })
  const bar = `no finding at or above ${utils.EXPECTED_COLOR(minSeverity)}`

  const message = (): string => {
    if (pass) {
      const checks =
        run.checks.length === 0
          ? 'it has no checks at all (no oracle graded it, so it passes vacuously; pass { requireChecks: true } to fail that)'
          : `all ${plural(run.checks.length, 'check')} passed`
      const below = run.findings.length - findings.length
      const rest =
        below > 0
          ? `, and its ${plural(below, 'finding')} ${below === 1 ? 'is' : 'are'} below ${minSeverity}`
          : ''
      return `${hint}\n\nExpected the run to fail a check or to have a finding at or above ${minSeverity}, but ${checks} and it has ${bar}${rest}.`
    }
    const lines: string[] = []
    if (unchecked) lines.push(`  ✖ no check ran: run.checks is empty (requireChecks is set)`)
    for (const c of failed.slice(0, SHOWN)) {
      lines.push(`  ✖ check ${utils.RECEIVED_COLOR(c.name)}${c.message ? `: ${c.message}` : ' failed'}`)
    }
    if (failed.length > SHOWN) lines.push(`  … and ${failed.length - SHOWN} more failed checks`)
    for (const f of findings.slice(0, SHOWN)) lines.push(...formatFinding(f, utils.RECEIVED_COLOR))
    if (findings.length > SHOWN) lines.push(`  … and ${findings.length - SHOWN} more findings`)
    const what = [
      failed.length > 0 && `${plural(failed.length, 'check')} of ${run.checks.length} failed`,
      findings.length > 0 && `${plural(findings.length, 'finding')} at or above ${minSeverity}`,
      unchecked && 'no check ran',
    ].filter(Boolean)
    return `${hint}\n\nExpected every check to pass and ${bar}, but ${what.join(' and ')}:\n${lines.join('\n')}`
  }
  return { pass, message }
}

function formatFinding(f: Finding, color: (s: string) => string): string[] {
  const where =
    f.steps.length === 0 ? '' : ` at ${f.steps.length === 1 ? 'step' : 'steps'} ${f.steps.join(', ')}`
  const out = [`  ✖ finding ${color(f.kind)} (${f.severity})${where}: ${f.message}`]
  for (const quote of f.evidence.slice(0, 3)) out.push(`      evidence: ${JSON.stringify(cut(quote))}`)
  if (f.evidence.length > 3) out.push(`      … and ${f.evidence.length - 3} more quotes`)
  return out
}

function cut(text: string, max = 160): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}
