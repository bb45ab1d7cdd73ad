import type { Run } from '../case/schema/run.ts'
import type { Severity } from '../case/schema/step.ts'
import { pc } from '../colors.ts'
import { formatUsd } from '../cost/format-usd.ts'
import type { Redactor } from '../redact/index.ts'
import { armText, type FixView, type ReportAttempt } from './internal/fix-views.ts'
import { buildReportModel, type ReportModel } from './internal/report-model.ts'
import { clip, foldLines } from './internal/text-fold.ts'

/**
 * Options of `renderTextReport`.
 *
 * @example
 * renderTextReport(run, { color: false, runRef: 'last' })
 */
export interface TextReportOptions {
  /** Colors on or off; default: what picocolors detects (off with `NO_COLOR`, or when not a terminal). */
  color?: boolean
  /** How the next commands name the run (`last`, a file path); default: the run's id. */
  runRef?: string
  /** The redaction rules; default: the built-in rules plus those added with `redaction.*`. */
  redactor?: Redactor
  /** The runs forked from this one (a `StoredRunSummary` fits), listed as the fix attempts. */
  attempts?: readonly ReportAttempt[]
}

/** Lines of a request or response shown for the failing step before the rest is folded away. */
const FAILING_STEP_LINES = 24
/** Width of a one-line request or response summary in the step table. */
const SUMMARY_WIDTH = 100

/**
 * The report of one run for a terminal (`crashlab report`): outcome, checks, findings with their
 * evidence, the diagnosis with its quotes, each fix with its diff and verification, the runs forked from
 * this one (`attempts`), the step table with each request and response on one line (the failing step
 * marked, and shown in more detail), usage and cost, and the commands to run next. The run is redacted
 * first, like everything crashlab writes.
 *
 * @example
 * process.stdout.write(renderTextReport(run))
 * // crashlab report · refund-bot · 01M8KQ0000REFVNDB0T0000000
 * // outcome  FAIL · status error · 5 steps · 1 of 2 checks failed · 2 findings
 * // ...
 */
export function renderTextReport(run: Run, options: TextReportOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported)
  const m = buildReportModel(run, { ...options, terminal: true })
  const r = m.run
  const out: string[] = []
  const heading = (text: string) => out.push('', c.bold(c.underline(text)))

  out.push(`${c.bold('crashlab report')} · ${r.name} · ${c.dim(r.id)}`)
  const outcome =
    r.outcome === 'fail'
      ? c.bold(c.red('FAIL'))
      : r.outcome === 'pass'
        ? c.bold(c.green('PASS'))
        : c.yellow('UNKNOWN')
  out.push(
    `outcome  ${outcome} · status ${r.status} · ${r.completeness} · ${r.steps.length} steps · ` +
      `${m.failedChecks} of ${r.checks.length} checks failed · ${r.findings.length} findings`,
  )
  if (r.input !== null) out.push(`input    ${clip(oneLine(r.input), SUMMARY_WIDTH)}`)
  if (r.output !== null) out.push(`output   ${clip(oneLine(r.output), SUMMARY_WIDTH)}`)
  if (r.error) out.push(`error    ${c.red(`${r.error.name}: ${r.error.message}`)}`)
  if (m.failing) {
    out.push(`failing  ${c.red(`step ${m.failing.index}`)}: ${m.failing.reasons[0] ?? ''}`)
  }

  heading(`checks (${r.checks.length})`)
  if (r.checks.length === 0) out.push(c.dim('  no oracle ran'))
  for (const check of r.checks) {
    const mark = check.passed ? c.green('✓') : c.red('✗')
    out.push(`  ${mark} ${check.name}${check.message ? ` — ${check.message}` : ''}`)
  }

  heading(`findings (${r.findings.length})`)
  if (r.findings.length === 0) out.push(c.dim('  none'))
  for (const f of r.findings) {
    out.push(`  ${severity(c, f.severity)} ${f.kind} · steps ${f.steps.join(', ') || '-'} — ${f.message}`)
    for (const quote of f.evidence) out.push(`      ${c.dim('“')}${quote}${c.dim('”')}`)
  }

  if (r.diagnosis) {
    const d = r.diagnosis
    heading('diagnosis')
    const at = d.failingStep === null ? '' : ` at step ${d.failingStep}`
    out.push(`  ${c.bold(d.label)}${at} — ${d.rootCause} ${c.dim(`(${d.by})`)}`)
    for (const e of d.evidence) out.push(`      step ${e.step}: ${c.dim('“')}${e.quote}${c.dim('”')}`)
  }
  if (m.fixes.length) {
    heading(`fixes (${m.fixes.length})`)
    for (const view of m.fixes) out.push(...fixLines(c, view))
  }
  if (m.attempts.length) {
    heading(`fix attempts (${m.attempts.length})`)
    out.push(...attemptLines(c, m))
  }

  heading(`steps (${r.steps.length})`)
  out.push(...stepTable(c, m))

  heading('usage and cost')
  const u = r.usage
  out.push(
    `  ${u.llmCalls} LLM calls · ${u.toolCalls} tool calls · tokens ${u.inputTokens} in / ${u.outputTokens} out` +
      ` (${u.cachedTokens} cached, ${u.reasoningTokens} reasoning)`,
  )
  out.push(`  cost ${m.costText}`)
  if (m.redactedNow > 0 || r.redaction.status !== 'none') {
    out.push(c.dim(`  ${m.redactedNow} values redacted for this report${m.partial ? ' (some dropped)' : ''}`))
  }

  heading('next')
  for (const n of m.next) out.push(`  ${c.cyan(n.command)}  ${c.dim(`# ${n.why}`)}`)
  return `${out.join('\n')}\n`
}

type Colors = ReturnType<typeof pc.createColors>

function severity(c: Colors, s: Severity): string {
  const label = s.padEnd(8)
  return s === 'critical'
    ? c.bold(c.red(label))
    : s === 'error'
      ? c.red(label)
      : s === 'warn'
        ? c.yellow(label)
        : c.dim(label)
}

/** A verdict's colour: green when the fix works, red when it does not, yellow in between. */
function verdict(c: Colors, v: string): string {
  if (v === 'VERIFIED') return c.bold(c.green(v))
  if (v === 'LIKELY') return c.green(v)
  if (v === 'REJECTED') return c.bold(c.red(v))
  return c.yellow(v)
}

function outcomeWord(c: Colors, o: string, width: number): string {
  const text = o.padEnd(width)
  return o === 'pass' ? c.green(text) : o === 'fail' ? c.red(text) : c.yellow(text)
}

function fixLines(c: Colors, { fix, diff, verification: v }: FixView): string[] {
  const head = v ? ` ${verdict(c, v.verdict)}` : c.dim(' not verified')
  const out = [`  ${fix.rank}. ${c.bold(fix.id)}${head} — ${fix.rationale}`]
  out.push(`     expected: ${fix.expectedEffect}`)
  if (v) {
    out.push(`     verdict:  ${verdict(c, v.verdict)} — ${v.reason}`)
    out.push(`     patched:  ${armText(v.patched, v.passK ?? v.k)}`)
    out.push(
      `     control:  ${v.control ? armText(v.control, v.passK ?? v.k) : c.dim('none (--no-control)')}`,
    )
    if (v.regressTrials > 0) {
      out.push(
        `     regress:  ${v.regressions.length} of ${v.regressTrials} re-runs of past good runs failed with the patch` +
          (v.regressions.length ? ':' : ''),
      )
      for (const t of v.regressions) {
        out.push(
          `       ${c.red('✗')} from ${t.from}${t.runId ? ` → ${t.runId}` : ''}${t.reason ? `: ${t.reason}` : ''}`,
        )
      }
    }
    out.push(
      `     cost:     ${formatUsd(v.costUsd)} · ${v.trials.length} forks from step ${v.atStep}` +
        (v.stopped ? ` · ${c.yellow(`stopped early (${v.stopped})`)}` : ''),
    )
  }
  if ('error' in diff) {
    out.push(`     diff:     ${c.yellow(diff.error)}`)
  } else {
    out.push(`     diff at step ${diff.step}:`)
    for (const line of diff.text.split('\n')) {
      const colored = line.startsWith('+')
        ? c.green(line)
        : line.startsWith('-')
          ? c.red(line)
          : line.startsWith('@@') || line.startsWith('#')
            ? c.cyan(line)
            : line
      out.push(`       ${colored}`)
    }
  }
  return out
}

function attemptLines(c: Colors, m: ReportModel): string[] {
  const fixWidth = Math.max(3, ...m.attempts.map((a) => (a.fixId ?? '-').length))
  const rows = [
    c.dim(`  ${'id'.padEnd(26)}  ${'fix'.padEnd(fixWidth)}  kind     outcome  status      steps  cost`),
  ]
  for (const a of m.attempts) {
    rows.push(
      `  ${a.id.padEnd(26)}  ${(a.fixId ?? '-').padEnd(fixWidth)}  ${a.kind.padEnd(7)}  ` +
        `${outcomeWord(c, a.outcome, 7)}  ${a.status.padEnd(10)}  ${String(a.steps).padStart(5)}  ` +
        `${a.costUsd === null ? 'unknown' : formatUsd(a.costUsd)}`,
    )
  }
  return rows
}

function oneLine(value: unknown): string {
  return (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\s+/g, ' ')
}

function stepTable(c: Colors, m: ReportModel): string[] {
  const rows: string[] = []
  const titleWidth = Math.min(40, Math.max(5, ...m.steps.map((s) => s.title.length)))
  rows.push(c.dim(`     #  type  ${'name'.padEnd(titleWidth)}  status       ms      tokens  cost`))
  for (const s of m.steps) {
    const failing = m.failing?.index === s.index
    const flagged = m.findingsByStep.has(s.index)
    const marker = failing ? c.red('▶') : flagged ? c.yellow('•') : ' '
    const status = s.status === 'ok' ? s.status.padEnd(11) : c.red(s.status.padEnd(11))
    const tokens = s.tokens ? `${s.tokens.input}/${s.tokens.output}` : '-'
    const cost = s.usd === undefined ? '' : s.usd === null ? 'unknown' : formatUsd(s.usd)
    const row =
      `  ${marker} ${String(s.index).padStart(2)}  ${s.type.padEnd(4)}  ${clip(s.title, titleWidth).padEnd(titleWidth)}` +
      `  ${status}  ${String(Math.round(s.durationMs)).padStart(5)}  ${tokens.padStart(10)}  ${cost}`
    rows.push(failing ? `${row}  ${c.bold(c.red('◀ failing step'))}` : row)
    if (s.detail) rows.push(`          ${c.dim(clip(s.detail, SUMMARY_WIDTH))}`)
    if (s.requestSummary) rows.push(`          → ${clip(s.requestSummary, SUMMARY_WIDTH)}`)
    // A failed tool's response is its error, already shown as the detail.
    if (s.responseSummary && s.responseSummary !== s.detail) {
      rows.push(`          ← ${clip(s.responseSummary, SUMMARY_WIDTH)}`)
    }
    if (flagged) {
      const kinds = (m.findingsByStep.get(s.index) ?? []).map((i) => m.run.findings[i]?.kind)
      rows.push(`          ${c.yellow(`findings: ${[...new Set(kinds)].join(', ')}`)}`)
    }
    if (failing) {
      for (const section of [...s.request, ...s.response]) {
        rows.push(`          ${c.bold(section.label)}`)
        const folded = foldLines(section.text, FAILING_STEP_LINES)
        for (const line of folded.lines) rows.push(`            ${line}`)
        if (folded.hidden > 0) {
          rows.push(c.dim(`            … ${folded.hidden} more lines (npx crashlab show ${m.ref})`))
        }
      }
    }
  }
  return rows
}
