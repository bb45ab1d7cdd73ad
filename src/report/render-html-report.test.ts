import { describe, expect, it } from 'vitest'
import { canonicalStringify } from '../case/canonical-json.ts'
import {
  buildFailingRun,
  buildFixedRun,
  FORK_A,
  FORK_B,
  PLANTED_SECRET,
  XSS_PROMPT,
  XSS_QUOTE,
  XSS_RATIONALE,
  XSS_RESULT,
} from './internal/test-fixtures.ts'
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

describe('renderHtmlReport: diagnosis, fixes, verification and attempts', () => {
  const fixed = buildFixedRun()
  const page = renderHtmlReport(fixed.run, { attempts: fixed.attempts })
  const part = (open: string, close: string) => {
    const start = page.indexOf(open)
    expect(start).toBeGreaterThan(-1)
    return page.slice(start, page.indexOf(close, start))
  }
  const fix = (i: number) => part(`<article class="fix" id="fix-${i}"`, '</article>')

  it('links each diagnosis quote to its step, escaped', () => {
    const d = part('<section id="diagnosis">', '</section>')
    expect(d).toContain('at <a href="#step-3">step 3</a>')
    expect(d).toContain(
      '<p class="muted"><a href="#step-2">step 2</a></p><blockquote>issue_refund({&quot;order_id&quot;:&quot;A17&quot;,&quot;amount&quot;:490})</blockquote>',
    )
    expect(d).toContain(
      '<a href="#step-3">step 3</a></p><blockquote>amount 490 exceeds the order total 49 &lt;b&gt;denied&lt;/b&gt;</blockquote>',
    )
    expect(page).not.toContain(XSS_QUOTE)
  })

  it('shows each fix with a verdict badge, its escaped rationale and its diff in a <pre>', () => {
    expect(fix(0)).toContain('data-verdict="VERIFIED"')
    expect(fix(0)).toContain('<h3>1. fix-1 <span class="badge verdict verified">VERIFIED</span></h3>')
    expect(fix(0)).toContain(
      '<p>The prompt never says &lt;b&gt;compare&lt;/b&gt; the amount &amp; the &quot;total&quot;</p>',
    )
    expect(page).not.toContain(XSS_RATIONALE)
    expect(fix(0)).toContain('<h4>Diff at <a href="#step-2">step 2</a></h4><pre class="diff">')
    expect(fix(0)).toContain('<span class="add">+Never refund more than the total get_order returned.</span>')
    expect(fix(1)).toContain('<h3>2. fix-2 <span class="badge verdict rejected">REJECTED</span></h3>')
    expect(fix(1)).toContain('<span class="hunk">@@ -3,6 +3,7 @@ tools.issue_refund</span>')
    expect(fix(1)).toContain('<span class="add">+  description: The amount is in cents.</span>')
  })

  it('shows each verification: reason, both arms with their interval and pass^k, regressions, cost', () => {
    expect(fix(0)).toContain(
      '<tr><th>verdict</th><td>The patched forks pass far more often than the controls.</td></tr>',
    )
    expect(fix(0)).toContain(
      '<tr><th>patched</th><td>9/10 passed (90%, 95% CI 60%–98%) · pass^3 70% · 0 errored of 10</td></tr>',
    )
    expect(fix(0)).toContain(
      '<tr><th>control</th><td>1/9 passed (11%, 95% CI 2%–43%) · pass^3 0% · 1 errored of 10</td></tr>',
    )
    expect(fix(0)).not.toContain('regressions')
    expect(fix(1)).toContain(
      '<tr><th>regressions</th><td>1 of 2 re-runs of past good runs failed with the patch<ul><li class="fail">',
    )
    expect(fix(1)).toContain(
      `→ <a href="#attempt-${FORK_B}"><code>${FORK_B}</code></a>: refunded 0 on a good order &lt;i&gt;</li>`,
    )
    expect(fix(1)).toContain(
      '$0.0042 · 3 forks from step 2 · <span class="warn">stopped early (max-cost)</span>',
    )
    expect(fix(0)).toContain('<tr data-arm="control" data-outcome="errored">')
  })

  it('lists the fix attempts with links to the fix each tried, and the trials link to them', () => {
    const rows = part('<section id="attempts">', '</section>')
    expect(rows).toContain('<h2>Fix attempts (2)</h2>')
    expect(rows.indexOf(FORK_A)).toBeLessThan(rows.indexOf(FORK_B))
    expect(rows).toContain(
      `<tr class="attempt" id="attempt-${FORK_A}" data-outcome="pass"><td><code>${FORK_A}</code></td>` +
        '<td><a href="#fix-0">fix-1</a></td><td>try</td><td class="pass">pass</td><td>ok</td><td class="n">5</td><td class="n">$0.0001</td></tr>',
    )
    expect(rows).toContain(
      `<td><a href="#fix-1">fix-2</a></td><td>regress</td><td class="fail">fail</td><td>ok</td><td class="n">4</td><td class="n">unknown</td>`,
    )
    expect(fix(0)).toContain(`<a href="#attempt-${FORK_A}">`)
    expect(page).toContain('<a href="#attempts">attempts</a>')
    // every link still lands inside the page
    for (const [, href] of page.matchAll(/href="([^"]*)"/g)) {
      expect(href).toMatch(/^#[\w-]+$/)
      expect(page).toContain(`id="${href!.slice(1)}"`)
    }
  })

  it('escapes and redacts what the attempts carry, and leaves the section out without them', () => {
    const hostile = [
      { ...fixed.attempts[0]!, tags: ['<script>x</script>'], fixId: `<b>${PLANTED_SECRET}</b>` },
    ]
    const out = renderHtmlReport(fixed.run, { attempts: hostile })
    expect(out).not.toMatch(/<script|<b>/)
    expect(out).not.toContain(PLANTED_SECRET)
    expect(out).toContain('&lt;b&gt;[REDACTED:openai-key]&lt;/b&gt;')
    expect(renderHtmlReport(fixed.run)).not.toContain('id="attempts"')
  })
})
