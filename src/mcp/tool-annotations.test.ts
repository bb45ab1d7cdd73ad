import { describe, expect, it } from 'vitest'
import { learnMcpTools, mcpSideEffects, mcpToolAnnotations } from './tool-annotations.ts'

describe('mcpSideEffects', () => {
  const decide = (
    annotations?: Record<string, boolean>,
    overrides?: Parameters<typeof mcpSideEffects>[0]['overrides'],
  ) => mcpSideEffects({ server: 'orders', tool: 'get_order', annotations, overrides })

  it('takes a tool as side-effect free only when it is annotated readOnlyHint: true', () => {
    expect(decide({ readOnlyHint: true })).toEqual({ sideEffects: false, from: 'annotations' })
    expect(decide({ readOnlyHint: true, idempotentHint: true, openWorldHint: false }).sideEffects).toBe(false)
    expect(decide({ readOnlyHint: false })).toEqual({ sideEffects: true, from: 'annotations' })
    expect(decide({ destructiveHint: false, idempotentHint: true })).toEqual({
      sideEffects: true,
      from: 'annotations',
    })
    expect(decide({})).toEqual({ sideEffects: true, from: 'annotations' })
    // Hints that contradict each other: the safe reading.
    expect(decide({ readOnlyHint: true, destructiveHint: true }).sideEffects).toBe(true)
    expect(decide(undefined)).toEqual({ sideEffects: true, from: 'unlisted' })
  })

  it('lets an override for the tool, or for its whole server, win over the annotations', () => {
    expect(decide({ readOnlyHint: true }, { orders: { get_order: true } })).toEqual({
      sideEffects: true,
      from: 'config',
    })
    expect(decide(undefined, { orders: false })).toEqual({ sideEffects: false, from: 'config' })
    expect(decide({}, { orders: { issue_refund: false } })).toEqual({
      sideEffects: true,
      from: 'annotations',
    })
    expect(decide({ readOnlyHint: true }, { other: true }).sideEffects).toBe(false)
    // A tool named like an Object method is not found on the prototype.
    expect(mcpSideEffects({ server: 'orders', tool: 'toString', overrides: { orders: {} } }).from).toBe(
      'unlisted',
    )
  })
})

describe('learnMcpTools', () => {
  it("keeps a listing per scope, and any scope's as the fallback for a server of that name", () => {
    const server = `orders-${Math.random()}`
    const a = {}
    const b = {}
    learnMcpTools(a, server, {
      tools: [
        { name: 'get_order', annotations: { readOnlyHint: true, title: 'Get order' } },
        { name: 'add_note' },
        { annotations: { readOnlyHint: true } },
      ],
    })
    expect(mcpToolAnnotations(a, server, 'get_order')).toEqual({ readOnlyHint: true })
    expect(mcpToolAnnotations(a, server, 'add_note')).toEqual({})
    expect(mcpToolAnnotations(b, server, 'get_order')).toEqual({ readOnlyHint: true })
    expect(mcpToolAnnotations(a, `${server}-2`, 'get_order')).toBeUndefined()
    // A later listing (another page, or the same server as another scope saw it) adds and replaces.
    learnMcpTools(b, server, { tools: [{ name: 'get_order', annotations: { readOnlyHint: false } }] })
    expect(mcpToolAnnotations(b, server, 'get_order')).toEqual({ readOnlyHint: false })
    expect(mcpToolAnnotations(a, server, 'get_order')).toEqual({ readOnlyHint: true })
    expect(mcpToolAnnotations(b, server, 'add_note')).toEqual({})
  })

  it('ignores an answer that is not a tool list', () => {
    const scope = {}
    learnMcpTools(scope, 'orders-none', { resources: [] })
    learnMcpTools(scope, 'orders-none', null)
    expect(mcpToolAnnotations(scope, 'orders-none', 'get_order')).toBeUndefined()
  })
})
