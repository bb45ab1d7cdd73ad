import type { ToolFault } from './faults.ts'
import { gatewayPage } from './internal/error-bodies.ts'

/**
 * What a `tool()`-wrapped tool does, in place of its recorded result, when a crash test injects a
 * tool fault: it throws, or it returns a result the agent did not expect. Deterministic: the same
 * fault on the same recorded result gives the same outcome.
 */

/** What a tool fault needs: the tool's name and what it returned in the recording. */
export interface ToolFaultContext {
  tool: string
  recordedResult: unknown
}

/** The tool throws this error, or returns this result. */
export type ToolFaultOutcome = { throws: Error } | { result: unknown }

/**
 * The error of `tool_timeout`: `name` is `ToolTimeoutError`, `code` is `ETIMEDOUT` (as Node names a
 * socket timeout), and the message says which tool timed out. An agent that tells timeouts apart by
 * `name`, `code` or /timed out/ in the message sees one.
 *
 * @example
 * err instanceof ToolTimeoutError && err.tool // 'get_order'
 */
export class ToolTimeoutError extends Error {
  override readonly name = 'ToolTimeoutError'
  readonly code = 'ETIMEDOUT'
  readonly tool: string

  constructor(tool: string) {
    super(`tool "${tool}" timed out (fault injected by a crashlab crash test)`)
    this.tool = tool
  }
}

/**
 * The outcome of a tool fault.
 *
 * - `tool_throw`: an `Error` with the fault's `message` (else `tool "<name>" failed (…)`).
 * - `tool_timeout`: a `ToolTimeoutError`.
 * - `tool_html_error`: the result is a gateway's 502 HTML page, as a string.
 * - `tool_empty`: an empty value of the recorded result's kind: `''` for a string, `[]` for an array,
 *   `{}` for an object, `null` for anything else.
 * - `tool_shape_drift`: see `driftShape`.
 *
 * @example
 * toolFaultOutcome({ kind: 'tool_shape_drift' }, { tool: 'get_order', recordedResult: { order_id: 'A17', total: 49 } })
 * // { result: { data: { OrderId: 'A17', Total: 49 } } }
 */
export function toolFaultOutcome(fault: ToolFault, ctx: ToolFaultContext): ToolFaultOutcome {
  switch (fault.kind) {
    case 'tool_throw':
      return {
        throws: new Error(
          fault.message ?? `tool "${ctx.tool}" failed (fault injected by a crashlab crash test)`,
        ),
      }
    case 'tool_timeout':
      return { throws: new ToolTimeoutError(ctx.tool) }
    case 'tool_html_error':
      return { result: gatewayPage(502) }
    case 'tool_empty':
      return { result: emptyLike(ctx.recordedResult) }
    case 'tool_shape_drift':
      return { result: driftShape(ctx.recordedResult) }
  }
}

function emptyLike(value: unknown): unknown {
  if (typeof value === 'string') return ''
  if (Array.isArray(value)) return []
  if (typeof value === 'object' && value !== null) return {}
  return null
}

/**
 * The recorded result with its shape changed, by one fixed rule: every object key, at any depth, is
 * written in PascalCase (`order_id` and `orderId` become `OrderId`), and the whole value is nested
 * under a `data` key, as an API's next version might send it. A string that is JSON text is drifted
 * inside and stays JSON text; any other string becomes the JSON text `{"data":"…"}`.
 *
 * @example
 * driftShape({ order_id: 'A17', items: [{ sku: 'X' }] }) // { data: { OrderId: 'A17', Items: [{ Sku: 'X' }] } }
 * driftShape('{"total":49}')                             // '{"data":{"Total":49}}'
 */
export function driftShape(value: unknown): unknown {
  if (typeof value === 'string') {
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch {
      return JSON.stringify({ data: value })
    }
    return JSON.stringify(driftShape(parsed))
  }
  return { data: renameKeys(value) }
}

function renameKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renameKeys)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) out[pascalCase(key)] = renameKeys(v)
  return out
}

function pascalCase(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '')
  if (words.length === 0) return key
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')
}
