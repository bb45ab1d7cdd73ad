import { describe, expect, it } from 'vitest'
import type { ToolStep } from '../case/schema/step.ts'
import {
  buildFailingRun,
  buildFixedRun,
  FORK_A,
  FORK_B,
  GOOD_RUN,
  PLANTED_SECRET,
  XSS_PROMPT,
  XSS_QUOTE,
  XSS_RATIONALE,
} from './internal/test-fixtures.ts'
import { renderTextReport } from './render-text-report.ts'

const run = buildFailingRun()
const text = renderTextReport(run, { color: false })
const lines = text.split('\n')

describe('renderTextReport', () => {
  it('opens with the run and its outcome', () => {
    expect(lines[0]).toBe(`crashlab report · refund-bot · ${run.id}`)
    expect(lines[1]).toBe(
      'outcome  FAIL · status ok · complete · 5 steps · 1 of 2 checks failed · 2 findings',
    )
    expect(text).toContain(`input    ${XSS_PROMPT}`)
    expect(text).toContain('failing  step 3: the tool threw: RefundError: amount 490 exceeds')
  })

  it('lists every check and every finding with its evidence', () => {
    expect(text).toContain('  ✗ refundNeverExceedsTotal — refund for A17 was 490, above the total of 49')
    expect(text).toContain('  ✓ looksUpFirst')
    expect(text).toContain(
      '  warn     suspicious_tool_result · steps 1 — get_order returned a result with markup in it',
    )
    expect(text).toContain('      “<img src=x onerror=alert(1)>”')
    expect(text).toContain(
      '  error    tool_error_streak · steps 3 — issue_refund failed: amount above the order total',
    )
    expect(text).toContain('      “amount 490 exceeds the order total 49”')
  })

  it('has one row per step with its request and response, and marks the failing step', () => {
    const rows = lines.filter((l) => /^ {2}[▶• ] {1,2}\d+ {2}(llm|tool|http)/.test(l))
    expect(rows.map((r) => Number(r.slice(4, 6)))).toEqual([0, 1, 2, 3, 4])
    expect(rows[3]).toMatch(/^ {2}▶ {2}3 {2}tool {2}issue_refund +error +5 +- +◀ failing step$/)
    expect(rows.filter((r) => r.includes('failing step'))).toHaveLength(1)
    expect(rows[1]!.startsWith('  •')).toBe(true)
    expect(rows[0]).toMatch(/100\/20 +\$0\.0000271$/)
    expect(text).toContain('          → {"order_id":"A17","amount":490}')
    expect(text).toContain('          ← → get_order({"order_id":"A17"})')
    expect(text).toContain('          ← Sorry, I could not refund order A17.')
    // the failing step's arguments, in full
    expect(text).toContain('              "amount": 490')
  })

  it('shortens long responses to one line', () => {
    const row = lines.find((l) => l.startsWith('          ← {"order_id":"A17","total":49'))
    expect(row?.endsWith('…')).toBe(true)
    expect(Array.from(row ?? '').length).toBeLessThanOrEqual(12 + 100)
  })

  it('folds a long body of the failing step, pointing at crashlab show', () => {
    const long = buildFailingRun()
    const step = long.steps[3] as ToolStep
    step.args = { order_id: 'A17', lines: Array.from({ length: 60 }, (_, i) => `line ${i}`) }
    const out = renderTextReport(long, { color: false, runRef: 'last' })
    expect(out).toContain('              "lines": [')
    expect(out).not.toContain('"line 59"')
    expect(out).toMatch(/… \d+ more lines \(npx crashlab show last\)/)
  })

  it('shows usage, cost (unknown without one) and the next commands', () => {
    expect(text).toContain('  3 LLM calls · 2 tool calls · tokens 306 in / 66 out (0 cached, 0 reasoning)')
    expect(text).toContain('  cost $0.0000813 (@pydantic/genai-prices 0.1.8)')
    expect(renderTextReport({ ...run, cost: null }, { color: false })).toContain('  cost unknown')
    const next = renderTextReport(run, { color: false, runRef: 'last' })
    for (const cmd of ['show last', 'replay last', 'diagnose last', 'fork last --at 3']) {
      expect(next).toContain(`  npx crashlab ${cmd}  # `)
    }
  })

  it('redacts before rendering', () => {
    expect(JSON.stringify(run)).toContain(PLANTED_SECRET)
    expect(text).not.toContain(PLANTED_SECRET)
    expect(text).not.toContain(PLANTED_SECRET.slice(8, 40))
    expect(text).toContain('[REDACTED:openai-key]')
  })

  it('colors only when asked, and shows control characters from the run as escapes', () => {
    const ansi = /\u001b\[/
    expect(text).not.toMatch(ansi)
    expect(renderTextReport(run, { color: true })).toMatch(ansi)
    const hostile = { ...run, input: 'clear\u001b[2J\u0007 me' }
    const out = renderTextReport(hostile, { color: false })
    expect(out).not.toMatch(ansi)
    expect(out).toContain('input    clear\\u001b[2J\\u0007 me')
  })
})

describe('renderTextReport: diagnosis, fixes, verification and attempts', () => {
  const fixed = buildFixedRun()
  const out = renderTextReport(fixed.run, { color: false, attempts: fixed.attempts })
  const section = (name: string) => {
    const start = out.indexOf(`\n${name}`)
    return out.slice(start, out.indexOf('\n\n', start + 1))
  }

  it('shows the diagnosis with each quote and its step', () => {
    const d = section('diagnosis')
    expect(d).toContain(
      'BAD_TOOL_ARGUMENTS at step 3 — The model refunded 490, ten times the order total of 49.',
    )
    expect(d).toContain('      step 2: “issue_refund({"order_id":"A17","amount":490})”')
    expect(d).toContain(`      step 3: “${XSS_QUOTE}”`)
  })

  it('shows each fix, best first, with its rationale, expected effect and diff at the model call', () => {
    const f = section('fixes (2)')
    expect(f.indexOf('  1. fix-1 VERIFIED — ')).toBeLessThan(f.indexOf('  2. fix-2 REJECTED — '))
    expect(f).toContain(`  1. fix-1 VERIFIED — ${XSS_RATIONALE}`)
    expect(f).toContain('     expected: Refunds at most 49 for A17.')
    // the failing step is 3, a tool call: the fix applies to the model call before it
    expect(f).toContain('     diff at step 2:')
    expect(f).toContain('       +Never refund more than the total get_order returned.')
    expect(f).toContain('        You are a refund assistant. Never refund more than the total.')
    expect(f).toContain('       @@ -3,6 +3,7 @@ tools.issue_refund')
    expect(f).toContain('       +  description: The amount is in cents.')
  })

  it('shows each verification: verdict, reason, rates with their interval, pass^k, errored, cost', () => {
    const f = section('fixes (2)')
    expect(f).toContain('     verdict:  VERIFIED — The patched forks pass far more often than the controls.')
    expect(f).toContain('     patched:  9/10 passed (90%, 95% CI 60%–98%) · pass^3 70% · 0 errored of 10')
    expect(f).toContain('     control:  1/9 passed (11%, 95% CI 2%–43%) · pass^3 0% · 1 errored of 10')
    expect(f).toContain('     cost:     $0.0123 · 2 forks from step 2')
    expect(f).toContain('     verdict:  REJECTED — A past good run fails with the patch.')
    expect(f).toContain('     patched:  2/5 passed (40%, 95% CI 12%–77%) · pass^3 0% · 0 errored of 5')
    expect(f).toContain('     regress:  1 of 2 re-runs of past good runs failed with the patch:')
    expect(f).toContain(`       ✗ from ${GOOD_RUN} → ${FORK_B}: refunded 0 on a good order <i>`)
    expect(f).toContain('     cost:     $0.0042 · 3 forks from step 2 · stopped early (max-cost)')
  })

  it('lists the fix attempts, oldest first, with the fix each tried, its outcome, steps and cost', () => {
    const rows = section('fix attempts (2)').split('\n').slice(2)
    expect(rows[0]).toMatch(/^ {2}id +fix +kind +outcome +status +steps +cost$/)
    expect(rows[1]).toMatch(new RegExp(`^ {2}${FORK_A} +fix-1 +try +pass +ok +5 +\\$0\\.0001$`))
    expect(rows[2]).toMatch(new RegExp(`^ {2}${FORK_B} +fix-2 +regress +fail +ok +4 +unknown$`))
  })

  it('says when a fix is not verified or its patch does not parse, and leaves attempts out when none', () => {
    const { run } = buildFixedRun()
    delete run.fixes[1]!.verification
    run.fixes[0]!.patch = { kind: 'no_such_kind' }
    const plain = renderTextReport(run, { color: false })
    expect(plain).toContain('  1. fix-1 not verified — ')
    expect(plain).toMatch(/ {5}diff: {5}the patch does not parse: .*fix-2/)
    expect(plain).not.toContain('fix attempts')
    // The next commands: verify the unverified fix; with no verified fix, nothing to export.
    expect(plain).toContain(`npx crashlab verify ${run.id} --fix fix-1 -k 5`)
    expect(plain).not.toContain('export-test')
    expect(out).toContain(`npx crashlab export-test ${fixed.run.id} --fix fix-1`)
  })
})
