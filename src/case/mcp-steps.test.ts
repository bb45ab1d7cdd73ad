import { describe, expect, it } from 'vitest'
import { mcpHandshake, mcpToolStep } from './internal/test-mcp-run.ts'
import { declaresSideEffects, isMcpHttpStep, isMcpToolStep, mcpResultValue } from './mcp-steps.ts'
import type { Step, ToolStep } from './schema/step.ts'

describe('MCP steps', () => {
  it('tells an MCP tool step and an MCP message from the other steps', () => {
    const tool = mcpToolStep(3, 'orders-server', 'get_order', {}, 'ok')
    const [initialize] = mcpHandshake(0, 'orders-server')
    const wrapped: Step = { ...tool, mcp: undefined }
    delete wrapped.mcp
    const models: Step = { ...initialize!, label: 'models.list' }
    expect([tool, initialize!, wrapped, models].map((s) => [isMcpToolStep(s), isMcpHttpStep(s)])).toEqual([
      [true, false],
      [false, true],
      [false, false],
      [false, false],
    ])
  })

  it('reads an MCP result as a wrapped tool’s return: structured content, else its text', () => {
    expect(mcpResultValue({ content: [{ type: 'text', text: '{"total":49}' }] })).toBe('{"total":49}')
    expect(
      mcpResultValue({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb')
    expect(
      mcpResultValue({ content: [{ type: 'text', text: '' }], structuredContent: { total: 49 } }),
    ).toEqual({
      total: 49,
    })
    const image = { content: [{ type: 'image', data: 'iVBORw0', mimeType: 'image/png' }] }
    expect(mcpResultValue(image)).toBe(image)
    expect(mcpResultValue({ content: [] })).toEqual({ content: [] })
    expect(mcpResultValue('text')).toBe('text')
    expect(mcpResultValue(undefined)).toBeUndefined()
  })

  it("takes an MCP tool's sideEffects as declared only when annotations or the config decided it", () => {
    const tool = mcpToolStep(3, 'orders-server', 'issue_refund', {}, 'ok') as ToolStep
    const withFrom = (from: 'config' | 'annotations' | 'unlisted' | undefined): ToolStep => ({
      ...tool,
      mcp: { ...tool.mcp!, ...(from && { sideEffectsFrom: from }) },
    })
    expect(declaresSideEffects(withFrom('annotations'))).toBe(true)
    expect(declaresSideEffects(withFrom('config'))).toBe(true)
    expect(declaresSideEffects(withFrom('unlisted'))).toBe(false)
    expect(declaresSideEffects(withFrom(undefined))).toBe(false)
    const wrapped: ToolStep = { ...tool }
    delete wrapped.mcp
    expect(declaresSideEffects(wrapped)).toBe(true)
  })
})
