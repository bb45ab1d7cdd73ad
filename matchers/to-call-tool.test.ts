import { describe, expect, test } from 'vitest'
import { viewRun } from '../src/internal.ts'
import './index.ts'
import { asMcpRun } from '../src/case/internal/test-mcp-run.ts'
import { refundRun } from './internal/test-runs.ts'

describe('toCallTool', () => {
  const run = refundRun({ amount: 490 })

  test('passes on a tool the run called, and .not fails naming the call', () => {
    expect(run).toCallTool('get_order')
    expect(() => expect(run).not.toCallTool('get_order')).toThrow(/step 1: get_order\(\{"order_id":"A17"\}\)/)
  })

  test('fails on a tool never called, listing the calls that were made; .not passes', () => {
    expect(run).not.toCallTool('delete_account')
    expect(() => expect(run).toCallTool('delete_account')).toThrow(
      /The run made 2 tool calls:\n\s+step 1: get_order\(.*\)\n\s+step 3: issue_refund\(.*"amount":490/,
    )
  })

  test('compares args with toEqual equality', () => {
    expect(run).toCallTool('issue_refund', { order_id: 'A17', amount: 490 })
    expect(run).not.toCallTool('issue_refund', { order_id: 'A17', amount: 49 })
    expect(() => expect(run).toCallTool('issue_refund', { order_id: 'A17', amount: 49 })).toThrow(
      /1 call of issue_refund, none with these args/,
    )
    expect(() => expect(run).not.toCallTool('issue_refund', { order_id: 'A17', amount: 490 })).toThrow(
      /Expected no call of .*issue_refund/,
    )
  })

  test('asymmetric matchers work inside args', () => {
    expect(run).toCallTool('issue_refund', expect.objectContaining({ amount: expect.any(Number) }))
    expect(run).not.toCallTool('issue_refund', expect.objectContaining({ amount: expect.any(String) }))
    expect(run).toCallTool('get_order', { order_id: expect.stringMatching(/^A\d+$/) })
  })

  test('a run with no tool calls says so', () => {
    const empty = { ...run, steps: run.steps.slice(0, 0) }
    expect(() => expect(empty).toCallTool('get_order')).toThrow(/made no tool call at all/)
  })

  test('accepts a RunView and rejects a missing name', () => {
    expect(viewRun(run)).toCallTool('issue_refund')
    expect(() => expect(run).toCallTool('' as string)).toThrow(/non-empty string/)
  })
})

describe('toCallTool on MCP tools', () => {
  const run = asMcpRun(refundRun({ amount: 490 }))

  test('an MCP server’s tool is a call like a wrapped one, listed with its server', () => {
    expect(run).toCallTool('issue_refund', { order_id: 'A17', amount: 490 })
    expect(() => expect(run).toCallTool('delete_account')).toThrow(
      /step 4: get_order\(\{"order_id":"A17"\}\) \(mcp: orders-server\)\n\s+step 6: issue_refund\(.*\) \(mcp: orders-server\)/,
    )
  })
})
