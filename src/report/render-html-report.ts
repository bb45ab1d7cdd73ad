import type { Run, Trial } from '../case/schema/run.ts'
import { formatUsd } from '../cost/format-usd.ts'
import type { Redactor } from '../redact/index.ts'
import { VERSION } from '../version.ts'
import { type AttemptView, armText, type FixView, type ReportAttempt } from './internal/fix-views.ts'
import { esc, foldedBody, STYLE } from './internal/html.ts'
import { renderSteps } from './internal/html-steps.ts'
import { buildReportModel, type ReportModel } from './internal/report-model.ts'

/**
 * Options of `renderHtmlReport`.
 *
 * @example
 * renderHtmlReport(run, { runRef: 'last', title: 'refund-bot: nightly' })
 */
export interface HtmlReportOptions {
  /** How the next commands name the run (`last`, a file path); default: the run's id. */
  runRef?: string
  /** The page title; default: `crashlab report: <run name> (<outcome>)`. */
  title?: string
  /** The redaction rules; default: the built-in rules plus those added with `redaction.*`. */
  redactor?: Redactor
  /** The runs forked from this one (a `StoredRunSummary` fits), listed as the fix attempts. */
  attempts?: readonly ReportAttempt[]
  /** The crash-test cells of this run, drawn as a grid of steps × faults (`crashlab report` passes them). */
  crashCells?: readonly CrashGridCell[]
}

/**
 * One cell of a run's crash tests, as the report draws it: the step, the fault's label, the outcome and
 * why, and the variant's run id.
 *
 * @example
 * const cell: CrashGridCell = { step: 1, fault: 'tool HTML error', outcome: 'failed', detail: 'TypeError: …' }
 */
export interface CrashGridCell {
  step: number
  /** The fault's label, as a column header (`429 (retry-after 0s)`). */
  fault: string
  outcome: 'survived' | 'failed' | 'diverged'
  detail: string
  runId?: string
}

// No script may run and nothing may load: the policy says so even if an escape were ever missed.
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

/**
 * The report of one run as one self-contained HTML file: inline CSS, no scripts, nothing loaded from
 * anywhere (a Content-Security-Policy forbids it too). It shows the outcome, the checks, the findings with
 * their evidence quotes and links to their steps, the diagnosis with its quotes linked to their steps, each
 * fix with its diff and its verification (a verdict badge, patched against control pass rates with their 95 %
 * intervals, pass^k, errored trials, regressions, cost), the runs forked from this one (`attempts`), the step
 * timeline with every request and response (long bodies folded in `<details>`, which needs no script),
 * usage and cost, and the commands to run next. The failing step (see `failingStepOf`) is the element
 * `#step-N` with `data-failing="true"` and a "failing step" badge, linked from the top of the page.
 * Light and dark follow the reader's system. The run is redacted first and every value is escaped.
 *
 * @example
 * writeFileSync('report.html', renderHtmlReport(run, { runRef: 'last' }))
 */
export function renderHtmlReport(run: Run, options: HtmlReportOptions = {}): string {
  const m = buildReportModel(run, options)
  const r = m.run
  const title = options.title ?? `crashlab report: ${r.name} (${r.outcome})`
  const body = [
    header(m, (options.crashCells?.length ?? 0) > 0),
    checks(m),
    findings(m),
    diagnosis(m),
    fixes(m),
    attempts(m),
    crashGrid(m.run, options.crashCells ?? []),
    steps(m),
    usage(m),
    next(m),
  ].join('\n')
  const redacted =
    m.redactedNow > 0
      ? ` ${m.redactedNow} value${m.redactedNow === 1 ? ' was' : 's were'} redacted for this report${m.partial ? ' (some dropped)' : ''}.`
      : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body data-outcome="${esc(r.outcome)}">
${body}
<footer>Written by crashlab ${esc(VERSION)}.${esc(redacted)}</footer>
</body>
</html>
`
}

function header(m: ReportModel, crashTests: boolean): string {
  const r = m.run
  const fact = (name: string, value: string) => `<dt>${esc(name)}</dt><dd>${value}</dd>`
  const facts = [
    fact(
      'outcome',
      `<span class="badge ${esc(r.outcome)}" id="outcome">${esc(r.outcome.toUpperCase())}</span>`,
    ),
    fact('status', `${esc(r.status)} · ${esc(r.completeness)}`),
    fact(
      'steps',
      `${r.steps.length} · ${m.failedChecks} of ${r.checks.length} checks failed · ${r.findings.length} findings`,
    ),
    fact('started', esc(r.startedAt) + (r.endedAt ? ` · ended ${esc(r.endedAt)}` : '')),
  ]
  if (r.tags.length) facts.push(fact('tags', esc(r.tags.join(', '))))
  if (r.links.replayOf) facts.push(fact('replay of', `<code>${esc(r.links.replayOf)}</code>`))
  if (r.links.forkedFrom) {
    facts.push(
      fact('forked from', `<code>${esc(r.links.forkedFrom)}</code> at step ${esc(r.links.forkStep ?? '?')}`),
    )
  }
  const io = [
    r.input === null ? '' : foldedBody('input', asText(r.input), m.ref),
    r.output === null ? '' : foldedBody('output', asText(r.output), m.ref),
  ].join('')
  const error = r.error
    ? `<p class="fail">The agent threw <code>${esc(r.error.name)}: ${esc(r.error.message)}</code></p>`
    : ''
  const failing = m.failing
    ? `<div class="callout" id="failing-callout"><strong>Failing step: <a href="#step-${m.failing.index}">step ${m.failing.index}</a></strong>` +
      `<ul>${m.failing.reasons.map((x) => `<li>${esc(x)}</li>`).join('')}</ul></div>`
    : ''
  const nav = [
    'checks',
    'findings',
    ...(r.diagnosis ? ['diagnosis'] : []),
    ...(m.fixes.length ? ['fixes'] : []),
    ...(m.attempts.length ? ['attempts'] : []),
    ...(crashTests ? ['crash-tests'] : []),
    'steps',
    'usage',
    'next',
  ]
    .map((s) => `<a href="#${s}">${s}</a>`)
    .join(' · ')
  return (
    `<header><h1>crashlab report: ${esc(r.name)}</h1><p class="muted"><code>${esc(r.id)}</code></p>` +
    `<dl class="facts">${facts.join('')}</dl>${io}${error}${failing}<nav>${nav}</nav></header>`
  )
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}

function checks(m: ReportModel): string {
  const list = m.run.checks.map(
    (c) =>
      `<li class="check" data-passed="${c.passed}"><span class="${c.passed ? 'pass' : 'fail'}">${c.passed ? '✓' : '✗'}</span> ` +
      `<strong>${esc(c.name)}</strong>${c.message ? ` — ${esc(c.message)}` : ''}</li>`,
  )
  const content = list.length
    ? `<ul class="checks">${list.join('')}</ul>`
    : '<p class="muted">No oracle ran.</p>'
  return `<section id="checks"><h2>Checks (${m.run.checks.length})</h2>${content}</section>`
}

function stepLinks(indexes: number[]): string {
  return indexes.map((i) => `<a href="#step-${esc(i)}">step ${esc(i)}</a>`).join(', ')
}

function findings(m: ReportModel): string {
  const items = m.run.findings.map(
    (f, i) =>
      `<article class="finding" id="finding-${i}" data-severity="${esc(f.severity)}">` +
      `<h3><span class="badge ${esc(f.severity)}">${esc(f.severity)}</span> ${esc(f.kind)}</h3>` +
      `<p>${esc(f.message)}</p>${f.steps.length ? `<p class="muted">Steps: ${stepLinks(f.steps)}</p>` : ''}` +
      f.evidence.map((q) => `<blockquote>${esc(q)}</blockquote>`).join('') +
      '</article>',
  )
  const content = items.length ? items.join('') : '<p class="muted">No findings.</p>'
  return `<section id="findings"><h2>Findings (${m.run.findings.length})</h2>${content}</section>`
}

function diagnosis(m: ReportModel): string {
  const d = m.run.diagnosis
  if (!d) return ''
  const at = d.failingStep === null ? '' : ` at ${stepLinks([d.failingStep])}`
  const quotes = d.evidence
    .map((e) => `<p class="muted">${stepLinks([e.step])}</p><blockquote>${esc(e.quote)}</blockquote>`)
    .join('')
  return (
    `<section id="diagnosis"><h2>Diagnosis</h2><p><strong>${esc(d.label)}</strong>${at}: ${esc(d.rootCause)} ` +
    `<span class="muted">(by ${esc(d.by)})</span></p>${quotes}</section>`
  )
}

function fixes(m: ReportModel): string {
  if (m.fixes.length === 0) return ''
  const listed = new Set(m.attempts.map((a) => a.id))
  const items = m.fixes.map((view, i) => fixArticle(view, i, listed, m.ref))
  return `<section id="fixes"><h2>Fixes (${m.fixes.length})</h2>${items.join('')}</section>`
}

function fixArticle(
  { fix, diff, verification: v }: FixView,
  i: number,
  listed: Set<string>,
  ref: string,
): string {
  const badge = v
    ? `<span class="badge verdict ${esc(v.verdict.toLowerCase())}">${esc(v.verdict)}</span>`
    : '<span class="badge verdict none">not verified</span>'
  const row = (name: string, value: string) => `<tr><th>${esc(name)}</th><td>${value}</td></tr>`
  const table = v
    ? '<table class="verification">' +
      row('verdict', esc(v.reason)) +
      row('patched', esc(armText(v.patched, v.passK ?? v.k))) +
      row(
        'control',
        v.control
          ? esc(armText(v.control, v.passK ?? v.k))
          : '<span class="muted">none (--no-control)</span>',
      ) +
      (v.regressTrials > 0
        ? row(
            'regressions',
            `${v.regressions.length} of ${v.regressTrials} re-runs of past good runs failed with the patch` +
              (v.regressions.length
                ? `<ul>${v.regressions.map((t) => `<li class="fail">from ${runLink(t.from, listed)}${t.runId ? ` → ${runLink(t.runId, listed)}` : ''}${t.reason ? `: ${esc(t.reason)}` : ''}</li>`).join('')}</ul>`
                : ''),
          )
        : '') +
      row(
        'cost',
        `${esc(formatUsd(v.costUsd))} · ${v.trials.length} forks from step ${esc(v.atStep)}` +
          (v.stopped ? ` · <span class="warn">stopped early (${esc(v.stopped)})</span>` : ''),
      ) +
      '</table>' +
      trials(v.trials, listed)
    : ''
  const shownDiff =
    'error' in diff
      ? `<p class="warn">${esc(diff.error)}</p>`
      : `<h4>Diff at <a href="#step-${esc(diff.step)}">step ${esc(diff.step)}</a></h4><pre class="diff">${diffLines(diff.text)}</pre>`
  return (
    `<article class="fix" id="fix-${i}" data-verdict="${esc(v?.verdict ?? 'none')}">` +
    `<h3>${esc(fix.rank)}. ${esc(fix.id)} ${badge}</h3><p>${esc(fix.rationale)}</p>` +
    `<p class="muted">Expected: ${esc(fix.expectedEffect)}</p>${table}${shownDiff}` +
    `${foldedBody('patch', JSON.stringify(fix.patch, null, 2), ref)}</article>`
  )
}

/** Each line of a unified diff in a span classed by what it is, so added and removed lines stand out. */
function diffLines(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const kind =
        line.startsWith('+++') || line.startsWith('---')
          ? 'file'
          : line.startsWith('+')
            ? 'add'
            : line.startsWith('-')
              ? 'del'
              : line.startsWith('@@')
                ? 'hunk'
                : line.startsWith('#')
                  ? 'note'
                  : 'ctx'
      return `<span class="${kind}">${esc(line)}</span>`
    })
    .join('\n')
}

/** A run id, linked to its row in the attempts when it is listed there. */
function runLink(id: string, listed: Set<string>): string {
  return listed.has(id)
    ? `<a href="#attempt-${esc(id)}"><code>${esc(id)}</code></a>`
    : `<code>${esc(id)}</code>`
}

function trials(list: readonly Trial[], listed: Set<string>): string {
  if (list.length === 0) return ''
  const rows = list.map(
    (t) =>
      `<tr data-arm="${esc(t.arm)}" data-outcome="${esc(t.outcome)}"><td>${esc(t.arm)}</td><td>${runLink(t.from, listed)}</td>` +
      `<td>${t.runId ? runLink(t.runId, listed) : '<span class="muted">not stored</span>'}</td>` +
      `<td class="${outcomeClass(t.outcome)}">${esc(t.outcome)}</td><td>${esc(t.reason ?? '')}</td>` +
      `<td class="n">${t.costUsd === null ? 'unknown' : esc(formatUsd(t.costUsd))}</td></tr>`,
  )
  return (
    `<details class="body"><summary>trials <span class="size">(${list.length})</span></summary>` +
    `<table class="trials"><tr><th>arm</th><th>from</th><th>fork</th><th>outcome</th><th>why</th><th>cost</th></tr>${rows.join('')}</table></details>`
  )
}

function outcomeClass(outcome: string): string {
  return outcome === 'pass' ? 'pass' : outcome === 'fail' ? 'fail' : 'warn'
}

function attempts(m: ReportModel): string {
  if (m.attempts.length === 0) return ''
  const fixIndex = new Map(m.fixes.map((f, i) => [f.fix.id, i]))
  const fixCell = (a: AttemptView) => {
    if (a.fixId === null) return '<span class="muted">-</span>'
    const i = fixIndex.get(a.fixId)
    return i === undefined ? esc(a.fixId) : `<a href="#fix-${i}">${esc(a.fixId)}</a>`
  }
  const rows = m.attempts.map(
    (a) =>
      `<tr class="attempt" id="attempt-${esc(a.id)}" data-outcome="${esc(a.outcome)}"><td><code>${esc(a.id)}</code></td>` +
      `<td>${fixCell(a)}</td><td>${esc(a.kind)}</td><td class="${outcomeClass(a.outcome)}">${esc(a.outcome)}</td>` +
      `<td>${esc(a.status)}</td><td class="n">${esc(a.steps)}</td>` +
      `<td class="n">${a.costUsd === null ? 'unknown' : esc(formatUsd(a.costUsd))}</td></tr>`,
  )
  return (
    `<section id="attempts"><h2>Fix attempts (${m.attempts.length})</h2><table class="attempts">` +
    `<tr><th>run</th><th>fix</th><th>kind</th><th>outcome</th><th>status</th><th>steps</th><th>cost</th></tr>` +
    `${rows.join('')}</table></section>`
  )
}

/**
 * The crash tests of the run as a picture: a grid of its steps (rows) × the faults (columns), each cell
 * coloured by how the agent came out (survived, failed, diverged) with the detail on hover and a link to
 * the step; a fault that does not fit a step is an empty cell.
 */
function crashGrid(run: Run, cells: readonly CrashGridCell[]): string {
  if (cells.length === 0) return ''
  const faults = [...new Set(cells.map((c) => c.fault))]
  const steps = [...new Set(cells.map((c) => c.step))].sort((a, b) => a - b)
  const byKey = new Map(cells.map((c) => [`${c.step}\u0000${c.fault}`, c]))
  const name = (index: number) => {
    const step = run.steps[index]
    return step ? (step.type === 'tool' ? step.name : step.type) : ''
  }
  const head = `<tr><th></th>${faults.map((f) => `<th>${esc(f)}</th>`).join('')}</tr>`
  const rows = steps.map((step) => {
    const tds = faults.map((fault) => {
      const cell = byKey.get(`${step}\u0000${fault}`)
      if (!cell) return '<td class="crash-none"></td>'
      const title = `step ${step} × ${fault}: ${cell.outcome} (${cell.detail})`
      return `<td class="crash-cell" data-outcome="${esc(cell.outcome)}" title="${esc(title)}">${esc(cell.outcome)}</td>`
    })
    return `<tr><th><a href="#step-${step}">step ${step}</a> ${esc(name(step))}</th>${tds.join('')}</tr>`
  })
  const count = (o: string) => cells.filter((c) => c.outcome === o).length
  const summary = `${cells.length} cells: ${count('survived')} survived, ${count('failed')} failed, ${count('diverged')} diverged`
  const notable = cells
    .filter((c) => c.outcome !== 'survived')
    .map(
      (c) =>
        `<li data-outcome="${esc(c.outcome)}"><a href="#step-${c.step}">step ${c.step}</a> × ${esc(c.fault)}: ` +
        `${esc(c.outcome)}: ${esc(c.detail)}${c.runId ? ` (<code>${esc(c.runId)}</code>)` : ''}</li>`,
    )
  return (
    `<section id="crash-tests"><h2>Crash tests (${cells.length})</h2><p>${esc(summary)}</p>` +
    `<table class="crash-grid">${head}${rows.join('')}</table>` +
    (notable.length ? `<ul class="crash-notable">${notable.join('')}</ul>` : '') +
    '</section>'
  )
}

function steps(m: ReportModel): string {
  return `<section id="steps"><h2>Steps (${m.run.steps.length})</h2>${renderSteps(m)}</section>`
}

function usage(m: ReportModel): string {
  const u = m.run.usage
  const row = (name: string, value: number | string) =>
    `<tr><th>${esc(name)}</th><td class="n">${esc(value)}</td></tr>`
  return (
    `<section id="usage"><h2>Usage and cost</h2><table>` +
    row('LLM calls', u.llmCalls) +
    row('tool calls', u.toolCalls) +
    row('input tokens', u.inputTokens) +
    row('output tokens', u.outputTokens) +
    row('cached tokens', u.cachedTokens) +
    row('reasoning tokens', u.reasoningTokens) +
    `<tr><th>cost</th><td class="n" id="cost">${esc(m.costText)}</td></tr></table></section>`
  )
}

function next(m: ReportModel): string {
  const items = m.next.map(
    (n) => `<li><code>${esc(n.command)}</code> <span class="muted">— ${esc(n.why)}</span></li>`,
  )
  return `<section id="next"><h2>Next</h2><ul class="next">${items.join('')}</ul></section>`
}
