import type { MatcherState, SyncMatcherResult } from 'vitest'
import { CrashlabError, type Finding, SEVERITIES, type Severity } from '../src/internal.ts'
import { asRunView, plural } from './internal/as-run-view.ts'

/**
 * Options of `toHaveFinding`.
 *
 * @example
 * expect(run).toHaveFinding('step_repetition', { minSeverity: 'critical', step: 7 })
 */
export interface HaveFindingOptions {
  /** Only findings at or above this severity count. Default `info` (any). */
  minSeverity?: Severity
  /** Only findings that name this step count. */
  step?: number
}

const RANK: Record<Severity, number> = { info: 0, warn: 1, error: 2, critical: 3 }

/**
 * `expect(run).toHaveFinding(kind, { minSeverity, step })`: a runtime detector reported a finding of
 * this kind (at or above the severity, naming the step, when given). A failure lists the findings the
 * run does have, so a wrong kind or severity is visible at once; `.not` lists the ones that matched.
 *
 * @example
 * expect(run).toHaveFinding('bad_tool_args')
 * expect(run).toHaveFinding('budget', { minSeverity: 'warn' })
 * expect(cleanRun).not.toHaveFinding('step_repetition')
 */
export function toHaveFinding(
  this: MatcherState,
  received: unknown,
  kind: string,
  options: HaveFindingOptions = {},
): SyncMatcherResult {
  const { run } = asRunView(received, 'toHaveFinding')
  if (typeof kind !== 'string' || kind.length === 0) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toHaveFinding(kind) needs the finding's kind, as in toHaveFinding('step_repetition'); got ${JSON.stringify(kind)}.`,
    )
  }
  const minSeverity = options.minSeverity ?? 'info'
  if (!SEVERITIES.includes(minSeverity)) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toHaveFinding: minSeverity must be one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(minSeverity)}.`,
    )
  }
  const matching = run.findings.filter(
    (f) =>
      f.kind === kind &&
      RANK[f.severity] >= RANK[minSeverity] &&
      (options.step === undefined || f.steps.includes(options.step)),
  )
  const pass = matching.length > 0
  const { utils } = this
  const hint = utils.matcherHint('toHaveFinding', 'run', 'kind', { isNot: this.isNot, promise: this.promise })
  const wanted = [
    utils.EXPECTED_COLOR(kind),
    minSeverity !== 'info' && `at or above ${minSeverity}`,
    options.step !== undefined && `naming step ${options.step}`,
  ]
    .filter(Boolean)
    .join(' ')
  const message = (): string => {
    if (pass) {
      return `${hint}\n\nExpected no finding ${wanted}, but the run has ${plural(matching.length, 'matching finding')}:\n${list(matching, utils.RECEIVED_COLOR)}`
    }
    const has =
      run.findings.length === 0
        ? 'the run has no findings at all'
        : `the run's ${plural(run.findings.length, 'finding')}:\n${list(run.findings, utils.RECEIVED_COLOR)}`
    return `${hint}\n\nExpected a finding ${wanted}, but ${has}`
  }
  return { pass, message }
}

function list(findings: readonly Finding[], color: (s: string) => string): string {
  const lines = findings.slice(0, 20).map((f) => {
    const where =
      f.steps.length === 0 ? '' : ` at step${f.steps.length === 1 ? '' : 's'} ${f.steps.join(', ')}`
    return `  - ${color(f.kind)} (${f.severity})${where}: ${f.message}`
  })
  if (findings.length > 20) lines.push(`  … and ${findings.length - 20} more`)
  return lines.join('\n')
}
