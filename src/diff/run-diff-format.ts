import type { Severity } from '../case/schema/step.ts'
import { pc } from '../colors.ts'
import { formatUsd } from '../cost/format-usd.ts'
import { formatDifferences } from './format-differences.ts'
import type { AlignedStep, AlignmentStatus, RunDiff } from './run-diff.ts'

/**
 * A run diff is read top-down: what the two runs are to each other, whether the verdict changed, what
 * it cost, and then where they part. The alignment is the long part, so unchanged stretches collapse
 * to one line and the rows stop at a limit; the first divergence ends the report because it is what
 * the reader acts on.
 */

/**
 * Options of `formatRunDiff`.
 *
 * @example
 * formatRunDiff(d, { color: false, maxRows: 20 })
 */
export interface FormatRunDiffOptions {
  /** ANSI colours; default: when the terminal supports them (picocolors' rule, `NO_COLOR` turns them off). */
  color?: boolean
  /** At most this many alignment rows, then `… N more rows`. Default 60. */
  maxRows?: number
}

const STATUS_TEXT: Record<AlignmentStatus, string> = {
  same: 'same',
  different_request: 'different request',
  different_response: 'different response',
  only_a: 'only in A',
  only_b: 'only in B',
}
const MARK: Record<AlignmentStatus, string> = {
  same: '=',
  different_request: '≠',
  different_response: '≠',
  only_a: '-',
  only_b: '+',
}
const SEVERITIES: readonly Severity[] = ['critical', 'error', 'warn', 'info']

/**
 * The terminal form of a run diff: relation, a side-by-side summary, check changes, the step alignment
 * (runs of `same` collapsed) and the first divergence's field diff.
 *
 * @example
 * console.log(formatRunDiff(diffRuns(parent, fork), { color: false }))
 * // A 01M8KT641K… (refund-bot)  vs  B 01M8KT643T… (refund-bot)
 * // B is a fork of A at step 3
 * // …
 */
export function formatRunDiff(d: RunDiff, options: FormatRunDiffOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported)
  const lines = [
    `${c.bold('A')} ${d.ids.a} (${d.names.a})  vs  ${c.bold('B')} ${d.ids.b} (${d.names.b})`,
    relationText(d),
    '',
  ]
  const u = d.usage
  const rows: string[][] = [
    ['', 'A', 'B', ''],
    ['status', d.status.a, d.status.b, d.status.changed ? c.yellow('changed') : ''],
    ['outcome', d.outcome.a, d.outcome.b, d.outcome.changed ? c.yellow('changed') : ''],
    numberRow('steps', d.steps.a, d.steps.b),
    numberRow('llm calls', u.a.llmCalls, u.b.llmCalls),
    numberRow('tool calls', u.a.toolCalls, u.b.toolCalls),
    numberRow('input tokens', u.a.inputTokens, u.b.inputTokens),
    numberRow('output tokens', u.a.outputTokens, u.b.outputTokens),
    numberRow('time', d.durationMs.a, d.durationMs.b, (n) => `${Math.round(n)} ms`),
    numberRow('cost', d.cost.a, d.cost.b, formatUsd),
    ['findings', findingsText(d.findings.a), findingsText(d.findings.b), ''],
  ]
  lines.push(...table(rows).map((l, i) => (i === 0 ? c.dim(l) : l)), '')

  lines.push(c.bold('checks'))
  const changed = d.checks.filter((x) => x.changed)
  if (d.checks.length === 0) lines.push(c.dim('  none (no oracle graded either run)'))
  for (const x of changed) lines.push(`  ${c.yellow('≠')} ${x.name}: ${verdict(x.a)} → ${verdict(x.b)}`)
  if (d.checks.length > changed.length) {
    lines.push(c.dim(`  ${d.checks.length - changed.length} unchanged`))
  }
  lines.push('', c.bold('steps'), `  ${counts(d.alignment)}`)
  lines.push(...alignmentLines(d.alignment, options.maxRows ?? 60, c))

  lines.push('')
  const first = d.firstDivergence
  if (!first) {
    lines.push(c.green('no divergence: every step is the same call with the same result'))
  } else {
    const where = [
      first.a === undefined ? '' : `A step ${first.a}`,
      first.b === undefined ? '' : `B step ${first.b}`,
    ]
    lines.push(
      `${c.bold('first divergence')}: ${where.filter(Boolean).join(', ')}, ${STATUS_TEXT[first.status]}`,
    )
    if (first.differences.length > 0) lines.push(formatDifferences(first.differences))
    else if (first.status === 'only_a' || first.status === 'only_b') {
      lines.push(c.dim(`  run ${first.status === 'only_a' ? 'B' : 'A'} has no step here`))
    } else lines.push(c.dim('  the normalized fields are equal (the difference is in the wire form)'))
  }
  return lines.join('\n')
}

function relationText(d: RunDiff): string {
  const child = d.parent === 'a' ? 'B' : 'A'
  const parent = d.parent === 'a' ? 'A' : 'B'
  if (d.relation === 'same') return 'the same run, compared with itself'
  if (d.relation === 'replay') return `${child} is a replay of ${parent}`
  if (d.relation === 'fork') {
    return `${child} is a fork of ${parent}${d.forkStep === undefined ? '' : ` at step ${d.forkStep}`}`
  }
  return 'unrelated runs (neither is a fork or a replay of the other)'
}

function numberRow(
  label: string,
  a: number | null,
  b: number | null,
  show: (n: number) => string = String,
): string[] {
  const delta = a === null || b === null || a === b ? '' : `${b > a ? '+' : '-'}${show(Math.abs(b - a))}`
  return [label, a === null ? '—' : show(a), b === null ? '—' : show(b), delta]
}

function findingsText(f: Record<Severity, number>): string {
  return (
    SEVERITIES.filter((s) => f[s] > 0)
      .map((s) => `${f[s]} ${s}`)
      .join(', ') || '—'
  )
}

function verdict(passed: boolean | undefined): string {
  return passed === undefined ? 'not run' : passed ? 'pass' : 'fail'
}

function counts(alignment: readonly AlignedStep[]): string {
  const n: Record<AlignmentStatus, number> = {
    same: 0,
    different_request: 0,
    different_response: 0,
    only_a: 0,
    only_b: 0,
  }
  for (const r of alignment) n[r.status]++
  return (Object.keys(n) as AlignmentStatus[]).map((s) => `${n[s]} ${STATUS_TEXT[s]}`).join(', ')
}

type Colors = ReturnType<typeof pc.createColors>

function alignmentLines(alignment: readonly AlignedStep[], maxRows: number, c: Colors): string[] {
  const paint = (s: AlignmentStatus, text: string): string =>
    s === 'same'
      ? c.dim(text)
      : s === 'only_a'
        ? c.red(text)
        : s === 'only_b'
          ? c.green(text)
          : c.yellow(text)
  const rows: string[][] = [['A', 'B', '', '', '']]
  for (let i = 0; i < alignment.length; i++) {
    const r = alignment[i]!
    let end = i
    while (end + 1 < alignment.length && alignment[end + 1]!.status === 'same') end++
    // A stretch of four or more unchanged steps: its first and last row, and a count between them.
    if (r.status === 'same' && end - i >= 3) {
      rows.push(stepRow(r, paint), ['⋯', '⋯', '', c.dim(`${end - i - 1} more same`), ''])
      rows.push(stepRow(alignment[end]!, paint))
      i = end
    } else rows.push(stepRow(r, paint))
  }
  const shown = rows.slice(0, maxRows + 1)
  const out = table(shown).map((l, i) => `  ${i === 0 ? c.dim(l) : l}`)
  if (rows.length > shown.length) out.push(c.dim(`  … ${rows.length - shown.length} more rows`))
  return out
}

function stepRow(r: AlignedStep, paint: (s: AlignmentStatus, t: string) => string): string[] {
  return [
    r.a === undefined ? '' : String(r.a),
    r.b === undefined ? '' : String(r.b),
    paint(r.status, MARK[r.status]),
    paint(r.status, STATUS_TEXT[r.status]),
    r.detail ?? '',
  ]
}

const ANSI = /\u001b\[[0-9;]*m/g

/** Columns padded to their widest cell (measured without colour codes); numbers and marks as they are. */
function table(rows: readonly (readonly string[])[]): string[] {
  const width = (s: string) => s.replace(ANSI, '').length
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => width(r[i] ?? ''))))
  return rows.map((r) =>
    r
      .map((cell, i) => cell + ' '.repeat(Math.max(0, widths[i]! - width(cell))))
      .join('  ')
      .trimEnd(),
  )
}
