import { describe, expect, it } from 'vitest'
import { asMcpRun } from '../../case/internal/test-mcp-run.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Run } from '../../case/schema/run.ts'
import type { Finding, ToolStep } from '../../case/schema/step.ts'
import { buildAgentRun, type ScriptTurn } from '../internal/test-agent-run.ts'
import { detectFindings } from './detect-findings.ts'

/**
 * The detectors read an MCP server's tool steps as they read wrapped tools' steps; the MCP messages
 * around them (`mcp:initialize`, `mcp:tools/list`: `http` steps) are neither tool calls nor LLM calls.
 */

/** The model asks for a tool, the MCP client calls it (no call id), the agent sends the result back. */
function turns(
  name: string,
  args: JsonValue,
  results: { result?: JsonValue; error?: string }[],
): ScriptTurn[] {
  const out: ScriptTurn[] = []
  results.forEach(({ result, error }, i) => {
    const id = `call_${i + 1}`
    out.push({ llm: { calls: [{ id, name, args }] } })
    out.push({
      tool: {
        name,
        args,
        ...(result === undefined ? {} : { result }),
        ...(error === undefined ? {} : { error: { name: 'Error', message: error } }),
      },
    })
    out.push({
      toolResult: { id, content: error ?? JSON.stringify(result ?? null), isError: error !== undefined },
    })
  })
  out.push({ llm: { text: 'Done.' } })
  return out
}

/** Kind, severity and message: the steps differ, since the MCP run has its handshake in front. */
const summary = (findings: Finding[]) => findings.map((f) => `${f.kind}:${f.severity}: ${f.message}`)

/** The names of the steps a finding points at, to check it points at the same calls in both runs. */
const named = (run: Run, finding: Finding) =>
  finding.steps.map((i) => {
    const s = run.steps[i]!
    return s.type === 'tool' ? s.name : s.type === 'http' ? s.label : s.type
  })

describe('detectors on MCP tool steps', () => {
  it('tool_error_streak: MCP isError results count as failed calls, as a wrapped tool’s errors do', () => {
    const wrapped = buildAgentRun(
      turns('get_order', { orderId: 'A17' }, [
        { error: 'db down' },
        { error: 'db down' },
        { error: 'db down' },
      ]),
    )
    const mcp = asMcpRun(wrapped)
    expect(mcp.steps.filter((s) => s.type === 'tool').every((s) => (s as ToolStep).mcp?.isError)).toBe(true)
    const a = detectFindings(wrapped)
    const b = detectFindings(mcp)
    expect(summary(b)).toEqual(summary(a))
    expect(summary(b)).toContain('tool_error_streak:warn: 3 tool calls failed in a row (get_order)')
    const streak = b.find((f) => f.kind === 'tool_error_streak')!
    expect(named(mcp, streak)).toEqual(['get_order', 'get_order', 'get_order'])
  })

  it('the server’s isError flag counts even when the result no longer says it', () => {
    const mcp = asMcpRun(
      buildAgentRun(turns('get_order', {}, [{ error: 'x' }, { error: 'x' }, { error: 'x' }])),
    )
    // A result whose flag was dropped (redacted, rewritten): `mcp.isError` is still the server's word.
    for (const s of mcp.steps) if (s.type === 'tool') s.result = { content: [{ type: 'text', text: 'x' }] }
    expect(summary(detectFindings(mcp))).toContain(
      'tool_error_streak:warn: 3 tool calls failed in a row (get_order)',
    )
  })

  it('repetition and suspicious results are found in an MCP run as in the wrapped one', () => {
    const html = '<!doctype html><title>502</title>'
    const wrapped = buildAgentRun(
      turns(
        'get_order',
        { orderId: 'A17' },
        Array.from({ length: 5 }, () => ({ result: html })),
      ),
    )
    const mcp = asMcpRun(wrapped)
    const found = summary(detectFindings(mcp))
    expect(found.length).toBeGreaterThan(0)
    expect(found).toEqual(summary(detectFindings(wrapped)))
  })

  it('budgets: MCP tool calls count once each; MCP messages are not LLM calls, tool calls or steps', () => {
    const wrapped = buildAgentRun(
      turns('get_order', {}, [{ result: { total: 49 } }, { result: { total: 49 } }]),
    )
    const mcp = asMcpRun(wrapped)
    expect(mcp.steps.filter((s) => s.type === 'http').map((s) => (s.type === 'http' ? s.label : ''))).toEqual(
      ['mcp:initialize', 'mcp:notifications/initialized', 'mcp:tools/list'],
    )
    const steps = wrapped.steps.length
    const llm = wrapped.steps.filter((s) => s.type === 'llm').length
    const limits = { maxSteps: steps, maxLlmCalls: llm, maxToolCalls: 2 }
    const used = summary(detectFindings(wrapped, limits))
    expect(used).toEqual([
      'budget:warn: budget: tool calls 2, 80% or more of the limit of 2',
      `budget:warn: budget: steps ${steps - 1}, 80% or more of the limit of ${steps}`,
      `budget:warn: budget: LLM calls ${llm}, 80% or more of the limit of ${llm}`,
    ])
    expect(summary(detectFindings(mcp, limits))).toEqual(used)
    const over = detectFindings(mcp, { maxToolCalls: 1, maxSteps: steps - 1 })
    expect(summary(over)).toEqual([
      'budget:error: budget: tool calls 2, over the limit of 1',
      `budget:error: budget: steps ${steps}, over the limit of ${steps - 1}`,
    ])
  })
})
