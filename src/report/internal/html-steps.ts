import { formatUsd } from '../../cost/format-usd.ts'
import { esc, foldedBody } from './html.ts'
import type { ReportModel } from './report-model.ts'
import type { StepSection, StepView } from './step-view.ts'

/**
 * The step timeline: one `<li id="step-N">` per step, never collapsed, so that a link to a step always
 * lands on something visible. The failing step carries `data-failing="true"` and a "failing step" badge;
 * steps a finding names carry `data-flagged="true"` and links back to those findings. Request and
 * response bodies sit in `<details>`, folded when long.
 */
export function renderSteps(m: ReportModel): string {
  if (m.steps.length === 0) return '<p class="muted">The run has no steps.</p>'
  return `<ol class="timeline">${m.steps.map((s) => renderStep(m, s)).join('')}</ol>`
}

function renderStep(m: ReportModel, s: StepView): string {
  const failing = m.failing?.index === s.index
  const findings = m.findingsByStep.get(s.index) ?? []
  const attrs = [
    `id="step-${s.index}"`,
    'class="step"',
    `data-step="${s.index}"`,
    `data-type="${esc(s.type)}"`,
    `data-status="${esc(s.status)}"`,
    `data-failing="${failing}"`,
    `data-flagged="${findings.length > 0}"`,
  ]
  const status = s.status === 'ok' ? 'pass' : s.status === 'blocked' ? 'warn' : 'fail'
  const tokens = s.tokens
    ? `<span class="muted">${esc(s.tokens.input)} in / ${esc(s.tokens.output)} out</span>`
    : ''
  const cost =
    s.usd === undefined
      ? ''
      : `<span class="muted">${s.usd === null ? 'cost unknown' : esc(formatUsd(s.usd))}</span>`
  const head =
    `<div class="step-head"><a class="muted" href="#step-${s.index}">#${s.index}</a>` +
    `<span class="badge">${esc(s.type)}</span><span class="title">${esc(s.title)}</span>` +
    `<span class="badge ${status}">${esc(s.status)}</span>` +
    (failing ? '<span class="badge failing">failing step</span>' : '') +
    `<span class="muted">${esc(Math.round(s.durationMs))} ms</span>${tokens}${cost}</div>`
  const detail = s.detail ? `<p class="${s.status === 'ok' ? 'muted' : 'fail'}">${esc(s.detail)}</p>` : ''
  const reasons =
    failing && m.failing?.reasons.length
      ? `<ul class="reasons">${m.failing.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`
      : ''
  const links = findings.length
    ? `<p>Findings: ${findings
        .map((i) => {
          const f = m.run.findings[i]
          return f
            ? `<a href="#finding-${i}" class="${esc(f.severity)}">${esc(f.kind)} (${esc(f.severity)})</a>`
            : ''
        })
        .join(', ')}</p>`
    : ''
  const io =
    `<div class="io"><div><h4>request</h4>${sections(s.request, m.ref)}</div>` +
    `<div><h4>response</h4>${s.response.length ? sections(s.response, m.ref) : '<p class="muted">none</p>'}</div></div>`
  return `<li ${attrs.join(' ')}>${head}${detail}${reasons}${links}${io}</li>`
}

function sections(list: StepSection[], ref: string): string {
  return list.map((section) => foldedBody(section.label, section.text, ref)).join('')
}
