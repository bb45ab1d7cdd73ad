import { describe, expect, it } from 'vitest'
import { canonicalStringify } from '../case/internal/canonical-json.ts'
import { buildFailingRun, PLANTED_SECRET, XSS_PROMPT, XSS_RESULT } from './internal/test-fixtures.ts'
import { renderHtmlReport } from './render-html-report.ts'

const run = buildFailingRun()
const html = renderHtmlReport(run, { runRef: 'last' })

/** The `<li>` of step `n`, from its opening tag to the next step's. */
function stepElement(n: number): string {
  const start = html.indexOf(`<li id="step-${n}"`)
  const end = html.indexOf('<li id="step-', start + 1)
  return html.slice(start, end === -1 ? html.indexOf('</ol>', start) : end)
}

describe('renderHtmlReport', () => {
  it('is one document with inline CSS, no script and nothing to load', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).toContain('<style>')
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/<(link|img|iframe|object|embed|video|audio|source)\b/i)
    // run data is escaped, so every `<` left in the file opens a tag the renderer wrote
    const tags = [...html.matchAll(/<[a-z][^>]*>/gi)].map((m) => m[0])
    expect(tags.filter((t) => /\s(src|srcset|action|style|on\w+)=/i.test(t))).toEqual([])
    // every link is an anchor inside the page
    for (const [, href] of html.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^#[\w-]+$/)
    expect(html).not.toMatch(/url\(|@import/i)
    expect(html).toContain('content="default-src &#39;none&#39;')
    expect(html).toContain('prefers-color-scheme:dark')
  })

  it('shows the outcome, every check, and every finding with its evidence and links to its steps', () => {
    expect(html).toContain('<title>crashlab report: refund-bot (fail)</title>')
    expect(html).toMatch(/id="outcome">FAIL</)
    for (const check of run.checks) {
      expect(html).toContain(`<li class="check" data-passed="${check.passed}">`)
      expect(html).toContain(check.name)
    }
    expect(html).toContain('refund for A17 was 490, above the total of 49')
    run.findings.forEach((f, i) => {
      expect(html).toContain(`id="finding-${i}" data-severity="${f.severity}"`)
      expect(html).toContain(f.message)
      for (const step of f.steps) expect(html).toContain(`<a href="#step-${step}">step ${step}</a>`)
    })
    expect(html).toContain('<blockquote>amount 490 exceeds the order total 49</blockquote>')
    expect(html).toContain('<blockquote>&lt;img src=x onerror=alert(1)&gt;</blockquote>')
  })

  it('has every step, with its request and response, and marks the failing one', () => {
    for (const step of run.steps) expect(html).toContain(`<li id="step-${step.index}" class="step"`)
    expect(html.match(/data-failing="true"/g)).toHaveLength(1)
    expect(stepElement(3)).toContain('data-failing="true"')
    expect(stepElement(3)).toContain('<span class="badge failing">failing step</span>')
    expect(stepElement(3)).toContain(
      'RefundError: amount 490 exceeds the order total 49 &lt;b&gt;denied&lt;/b&gt;',
    )
    expect(stepElement(2)).toContain('data-failing="false"')
    expect(stepElement(1)).toContain('data-flagged="true"')
    expect(stepElement(1)).toContain('href="#finding-0"')
    expect(html).toContain('<strong>Failing step: <a href="#step-3">step 3</a></strong>')
    expect(stepElement(0)).toContain('→ get_order({&quot;order_id&quot;:&quot;A17&quot;})')
    expect(stepElement(4)).toContain('Sorry, I could not refund order A17.')
  })

  it('folds a long body and leaves a short one open', () => {
    const result = stepElement(1).match(/<details class="body" data-folded="(\w+)"( open)?><summary>result /)
    expect(result?.[1]).toBe('true')
    expect(result?.[2]).toBeUndefined()
    expect(stepElement(1)).toMatch(/<details class="body" data-folded="false" open><summary>arguments /)
    expect(stepElement(1)).toMatch(/lines, [\d.]+ KB, folded\)/)
  })

  it('escapes markup from prompts and tool results', () => {
    expect(html).not.toContain(XSS_PROMPT)
    expect(html).not.toContain(XSS_RESULT)
    expect(html).toContain('Refund A17 &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; please')
    const hostile = buildFailingRun()
    hostile.name = '"><script>alert(1)</script>'
    hostile.checks[0]!.name = "x' onmouseover='alert(1)"
    const out = renderHtmlReport(hostile, { title: '</title><script>alert(2)</script>' })
    expect(out).not.toMatch(/<script/i)
    expect(out).not.toContain("' onmouseover='")
    expect(out).toContain('&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;')
  })

  it('redacts before rendering, and leaves the caller’s run as it was', () => {
    const before = canonicalStringify(run)
    expect(before).toContain(PLANTED_SECRET)
    const out = renderHtmlReport(run)
    expect(out).not.toContain(PLANTED_SECRET)
    expect(out).not.toContain(PLANTED_SECRET.slice(8, 40))
    expect(out).toContain('[REDACTED:openai-key]')
    expect(out).toContain('[REDACTED:sensitive-key]')
    expect(out).toMatch(/\d+ values were redacted for this report/)
    expect(canonicalStringify(run)).toBe(before)
  })

  it('shows usage and cost, unknown when the run has none', () => {
    expect(html).toContain('<tr><th>input tokens</th><td class="n">306</td></tr>')
    expect(html).toContain('<td class="n" id="cost">$0.0000813 (@pydantic/genai-prices 0.1.8)</td>')
    expect(stepElement(0)).toContain('$0.0000271')
    const unpriced = renderHtmlReport({ ...run, cost: null })
    expect(unpriced).toContain('<td class="n" id="cost">unknown</td>')
  })

  it('lists the next commands, naming the run by runRef or by its id', () => {
    for (const cmd of ['show last', 'replay last', 'diagnose last', 'fork last --at 3']) {
      expect(html).toContain(`<code>npx crashlab ${cmd}</code>`)
    }
    expect(renderHtmlReport(run)).toContain(`<code>npx crashlab show ${run.id}</code>`)
    expect(renderHtmlReport(run, { runRef: "it's here" })).toContain(
      '<code>npx crashlab show &#39;it&#39;\\&#39;&#39;s here&#39;</code>',
    )
  })

  it('says so when a run has no checks, findings or steps', () => {
    const empty = renderHtmlReport({ ...run, steps: [], checks: [], findings: [], outcome: 'unknown' })
    expect(empty).toContain('No oracle ran.')
    expect(empty).toContain('No findings.')
    expect(empty).toContain('The run has no steps.')
    expect(empty).not.toContain('crashlab diagnose')
  })
})
