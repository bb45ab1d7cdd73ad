import { describe, expect, it } from 'vitest'
import { asMcpRun } from '../case/internal/test-mcp-run.ts'
import type { Run } from '../case/schema/run.ts'
import { failingStepOf } from './failing-step.ts'
import { buildFailingRun, XSS_QUOTE } from './internal/test-fixtures.ts'
import { renderHtmlReport } from './render-html-report.ts'
import { renderTextReport } from './render-text-report.ts'

/**
 * The report's failing run with its tools on an MCP server: get_order answers, issue_refund answers
 * `isError` (where the wrapped tool threw). Findings, checks and the diagnosis are dropped: they name
 * steps of the run before the handshake was put in front.
 */
function mcpRun(): Run {
  const run = asMcpRun({ ...buildFailingRun(), findings: [], checks: [], diagnosis: null })
  return run
}

describe('the report of a run with MCP steps', () => {
  const run = mcpRun()
  const refund = run.steps.findIndex((s) => s.type === 'tool' && s.name === 'issue_refund')
  const text = renderTextReport(run, { color: false })
  const lines = text.split('\n')

  it('an MCP tool shows as a tool step with its server, and isError as a failure', () => {
    const row = lines.find((l) => l.includes('issue_refund (mcp: orders-server)'))
    expect(row).toMatch(new RegExp(`^  ▶ +${refund}  tool  issue_refund \\(mcp: orders-server\\) +error `))
    expect(row).toContain('◀ failing step')
    expect(text).toContain('tool error: amount 490 exceeds the order total 49')
    const at = lines.findIndex((l) => l.includes('get_order (mcp: orders-server)'))
    expect(lines[at]).toMatch(/ tool {2}get_order .* ok /)
    // Its `sideEffects: true` is MCP's default, not a declaration: no `side effects` note.
    expect(lines[at + 1]).toBe('          → {"order_id":"A17"}')
  })

  it('marks the isError step as the failing one, with the tool’s text as the reason', () => {
    expect(failingStepOf(run)).toEqual({
      index: refund,
      reasons: [`the MCP tool reported an error: ${XSS_QUOTE}`],
    })
  })

  it('MCP messages are one row each, named by their method, with no summary lines', () => {
    const at = lines.findIndex((l) => / http {2}mcp:initialize /.test(l))
    expect(at).toBeGreaterThan(0)
    expect(lines[at + 1]).toMatch(/ http {2}mcp:notifications\/initialized +ok /)
    expect(lines[at + 2]).toMatch(/ http {2}mcp:tools\/list +ok /)
    expect(lines[at + 3]).toMatch(/ tool {2}get_order \(mcp: orders-server\) /)
    // Only the failing step unfolds its sections: the MCP messages' wire exchanges stay out of the table.
    expect(lines.slice(at, at + 3).join('\n')).not.toContain('POST http://127.0.0.1:3001/mcp')
    expect(lines[at + 1]!.startsWith('     2')).toBe(true)
  })

  it('the HTML report shows the same: a tool step with its server, failed, and the MCP exchange folded', () => {
    const html = renderHtmlReport(run, { runRef: 'last' })
    const start = html.indexOf(`<li id="step-${refund}"`)
    const li = html.slice(start, html.indexOf(`<li id="step-${refund + 1}"`, start))
    expect(li).toContain('data-type="tool" data-status="error" data-failing="true"')
    expect(li).toContain('<span class="title">issue_refund (mcp: orders-server)</span>')
    expect(li).toContain('tool error: amount 490 exceeds the order total 49')
    expect(li).toContain('wire response (mcp)')
    expect(html).toContain('<span class="title">mcp:tools/list</span>')
  })
})
