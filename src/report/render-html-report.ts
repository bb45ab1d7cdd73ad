import type { Run } from '../case/schema/run.ts'
import type { Redactor } from '../redact/index.ts'
import { VERSION } from '../version.ts'
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
}

// No script may run and nothing may load: the policy says so even if an escape were ever missed.
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

/**
 * The report of one run as one self-contained HTML file: inline CSS, no scripts, nothing loaded from
 * anywhere (a Content-Security-Policy forbids it too). It shows the outcome, the checks, the findings with
 * their evidence quotes and links to their steps, the diagnosis and fixes when there are any, the step
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
  const body = [header(m), checks(m), findings(m), diagnosis(m), fixes(m), steps(m), usage(m), next(m)].join(
    '\n',
  )
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

function header(m: ReportModel): string {
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
  const nav = ['checks', 'findings', 'steps', 'usage', 'next']
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
  if (m.run.fixes.length === 0) return ''
  const items = m.run.fixes.map(
    (f) =>
      `<li><strong>${esc(f.rank)}. ${esc(f.id)}</strong>: ${esc(f.rationale)} <span class="muted">Expected: ${esc(f.expectedEffect)}</span>` +
      `${foldedBody('patch', JSON.stringify(f.patch, null, 2), m.ref)}</li>`,
  )
  return `<section id="fixes"><h2>Fixes (${m.run.fixes.length})</h2><ol>${items.join('')}</ol></section>`
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
