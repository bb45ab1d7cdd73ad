import { describe, expect, test } from 'vitest'
import { viewRun } from '../src/internal.ts'
import './index.ts'
import { asMcpRun } from '../src/case/internal/test-mcp-run.ts'
import { refundRun } from './internal/test-runs.ts'

// refundRun: 5 steps (3 LLM, 2 tool), 300 input + 60 output tokens, ends at 500 ms (last step ends at 450).
describe('toFinishWithin', () => {
  const run = refundRun()

  test('measures steps, tokens, llmCalls, toolCalls and ms', () => {
    expect(run).toFinishWithin({ steps: 5, tokens: 360, llmCalls: 3, toolCalls: 2, ms: 500 })
    expect(run).not.toFinishWithin({ steps: 4 })
    expect(run).not.toFinishWithin({ tokens: 359 })
    expect(run).not.toFinishWithin({ llmCalls: 2 })
    expect(run).not.toFinishWithin({ toolCalls: 1 })
    expect(run).not.toFinishWithin({ ms: 499 })
  })

  test('a failure names each exceeded budget with actual and limit, and the ones kept', () => {
    expect(() => expect(run).toFinishWithin({ steps: 3, llmCalls: 2, ms: 10_000 })).toThrow(
      /exceeded 2 of 3:\n\s+✖ steps: .*5.* > limit .*3.* \(2 over\)\n\s+✖ llmCalls: .*3.* > limit .*2.* \(1 over\)\n\s+✓ ms: 500 ≤ 10000/,
    )
  })

  test('.not fails when the run stayed within every budget, listing them', () => {
    expect(() => expect(run).not.toFinishWithin({ steps: 10, toolCalls: 2 })).toThrow(
      /stayed within all of them:\n\s+steps: .*5.* ≤ .*10.*\n\s+toolCalls: .*2.* ≤ .*2/,
    )
  })

  test('an unfinished run is measured to the end of its last step', () => {
    const unfinished = { ...run, endedAt: null, status: 'incomplete' as const }
    expect(unfinished).toFinishWithin({ ms: 450 })
    expect(unfinished).not.toFinishWithin({ ms: 449 })
  })

  test('accepts a RunView; rejects an empty, unknown or negative budget', () => {
    expect(viewRun(run)).toFinishWithin({ steps: 5 })
    expect(() => expect(run).toFinishWithin({})).toThrow(/at least one budget/)
    expect(() => expect(run).toFinishWithin({ turns: 3 } as never)).toThrow(/unknown budget turns/)
    expect(() => expect(run).toFinishWithin({ steps: -1 })).toThrow(/steps must be a number ≥ 0/)
  })
})

describe('toFinishWithin on a run with MCP tools', () => {
  test('MCP tool calls are steps and tool calls; MCP messages (handshake, tools/list) are not steps', () => {
    const run = asMcpRun(refundRun({ amount: 490 }))
    expect(run.steps).toHaveLength(8)
    expect(run).toFinishWithin({ steps: 5, llmCalls: 3, toolCalls: 2 })
    expect(run).not.toFinishWithin({ steps: 4 })
  })
})
