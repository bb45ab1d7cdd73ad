import { describe, expect, it } from 'vitest'
import type { ToolStep } from '../case/schema/step.ts'
import { buildFailingRun, PLANTED_SECRET, XSS_PROMPT } from './internal/test-fixtures.ts'
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
