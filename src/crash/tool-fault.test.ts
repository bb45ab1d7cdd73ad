import { describe, expect, it } from 'vitest'
import { driftShape, ToolTimeoutError, toolFaultOutcome } from './tool-fault.ts'

const ctx = {
  tool: 'get_order',
  recordedResult: { order_id: 'A17', totalAmount: 49, items: [{ sku: 'X-1' }] },
}

describe('toolFaultOutcome', () => {
  it('tool_throw: an Error with the given message, or one naming the tool', () => {
    const given = toolFaultOutcome({ kind: 'tool_throw', message: 'ECONNREFUSED orders-db:5432' }, ctx)
    expect('throws' in given && given.throws.message).toBe('ECONNREFUSED orders-db:5432')
    const fallback = toolFaultOutcome({ kind: 'tool_throw' }, ctx)
    expect('throws' in fallback && fallback.throws).toBeInstanceOf(Error)
    expect('throws' in fallback && fallback.throws.message).toContain('"get_order" failed')
  })

  it('tool_timeout: a ToolTimeoutError whose name, code and message say it timed out', () => {
    const out = toolFaultOutcome({ kind: 'tool_timeout' }, ctx)
    if (!('throws' in out)) throw new Error('expected a throw')
    expect(out.throws).toBeInstanceOf(ToolTimeoutError)
    expect(out.throws).toBeInstanceOf(Error)
    expect(out.throws.name).toBe('ToolTimeoutError')
    expect((out.throws as ToolTimeoutError).code).toBe('ETIMEDOUT')
    expect((out.throws as ToolTimeoutError).tool).toBe('get_order')
    expect(out.throws.message).toMatch(/"get_order" timed out/)
  })

  it('tool_html_error: an HTML error page as the result', () => {
    const out = toolFaultOutcome({ kind: 'tool_html_error' }, ctx)
    expect('result' in out && typeof out.result).toBe('string')
    expect('result' in out && String(out.result)).toMatch(/^<html>[\s\S]*502 Bad Gateway[\s\S]*<\/html>/)
  })

  it('tool_empty: an empty value of the recorded kind', () => {
    const empty = (recordedResult: unknown) =>
      toolFaultOutcome({ kind: 'tool_empty' }, { tool: 't', recordedResult })
    expect(empty({ a: 1 })).toEqual({ result: {} })
    expect(empty([1, 2])).toEqual({ result: [] })
    expect(empty('some text')).toEqual({ result: '' })
    expect(empty(42)).toEqual({ result: null })
    expect(empty(undefined)).toEqual({ result: null })
  })

  it('tool_shape_drift: PascalCase keys at every depth, nested under data', () => {
    expect(toolFaultOutcome({ kind: 'tool_shape_drift' }, ctx)).toEqual({
      result: { data: { OrderId: 'A17', TotalAmount: 49, Items: [{ Sku: 'X-1' }] } },
    })
  })
})

describe('driftShape', () => {
  it('JSON text stays JSON text, drifted inside; other text is wrapped', () => {
    expect(driftShape('{"order_id":"A17"}')).toBe('{"data":{"OrderId":"A17"}}')
    expect(driftShape('not json')).toBe('{"data":"not json"}')
  })

  it('is deterministic, and never returns the recorded value unchanged', () => {
    for (const value of [{ a: 1 }, [1], 'x', 7, null, { Already: { Pascal: true } }]) {
      expect(driftShape(value)).toEqual(driftShape(value))
      expect(driftShape(value)).not.toEqual(value)
    }
  })

  it('does not change the recorded value it reads', () => {
    const recorded = { order_id: 'A17', nested: { line_items: [] } }
    const copy = structuredClone(recorded)
    driftShape(recorded)
    expect(recorded).toEqual(copy)
  })
})
