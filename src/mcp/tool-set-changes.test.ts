import { describe, expect, it } from 'vitest'
import { toolSetChanges } from './stdio-recording.ts'

describe('toolSetChanges', () => {
  const getOrder = { name: 'get_order', description: 'Look up an order', inputSchema: { type: 'object' } }

  it('names a renamed tool as removed and added', () => {
    expect(
      toolSetChanges([getOrder, { name: 'issue_refund' }], [getOrder, { name: 'refund_order' }]),
    ).toEqual(['tool "issue_refund" was removed', 'tool "refund_order" was added'])
  })

  it('names a tool whose description or input schema changed; key order in a schema is no change', () => {
    const reordered = { ...getOrder, inputSchema: { properties: {}, type: 'object' } }
    const before = { ...getOrder, inputSchema: { type: 'object', properties: {} } }
    expect(toolSetChanges([before], [reordered])).toEqual([])
    expect(toolSetChanges([getOrder], [{ ...getOrder, description: 'Find an order' }])).toEqual([
      'the description of tool "get_order" changed',
    ])
    expect(
      toolSetChanges([getOrder], [{ ...getOrder, inputSchema: { type: 'object', required: ['id'] } }]),
    ).toEqual(['the input schema of tool "get_order" changed'])
  })
})
