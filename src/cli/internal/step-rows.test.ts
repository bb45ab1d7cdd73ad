import { describe, expect, it } from 'vitest'
import { createRun } from '../../case/create-run.ts'
import { mcpHandshake, mcpToolStep } from '../../case/internal/test-mcp-run.ts'
import { stepRows } from './step-rows.ts'

describe('stepRows', () => {
  it('names an MCP tool with its server, and an MCP message by its label', () => {
    const run = createRun({ id: '01M8KQ0000SH0WMCP000000000', name: 'refund-bot', startedAt: new Date(0) })
    run.steps = [...mcpHandshake(0, 'orders-server'), mcpToolStep(3, 'orders-server', 'get_order', {}, 'ok')]
    expect(stepRows(run).map((r) => r.slice(0, 3))).toEqual([
      ['0', 'http', 'mcp:initialize POST'],
      ['1', 'http', 'mcp:notifications/initialized POST'],
      ['2', 'http', 'mcp:tools/list POST'],
      ['3', 'tool', 'get_order (mcp: orders-server)'],
    ])
  })
})
