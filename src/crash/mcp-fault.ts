import type { JsonValue } from '../case/schema/json.ts'
import type { McpFault } from './faults.ts'
import { connectionResetError, timeoutError } from './internal/wire-cuts.ts'

/**
 * What an MCP server's `tools/call` answers, in place of the recording, when a crash test injects an
 * MCP fault: an MCP result to answer the call with, or the error the client's `fetch` rejects with.
 * Built at once, with no timer: the same fault gives the same answer.
 */

/** The MCP result to answer the call with, or the error its `fetch` rejects with. */
export type McpFaultAnswer = { result: JsonValue } | { reject: Error }

/**
 * The answer an MCP `tools/call` of tool `tool` gets for `fault`.
 *
 * - `mcp_error_result`: a result with `isError: true` and one text content, the fault's `message`
 *   (else `tool "<name>" failed (…)`).
 * - `mcp_transport_error`: the request fails as a reset connection does (`TypeError: fetch failed`,
 *   cause `ECONNRESET`).
 * - `mcp_timeout`: the request fails at once with the `TimeoutError` of a fetch whose time ran out.
 *
 * @example
 * mcpFaultAnswer({ kind: 'mcp_error_result' }, 'get_order')
 * // { result: { isError: true, content: [{ type: 'text', text: 'tool "get_order" failed (…)' }] } }
 */
export function mcpFaultAnswer(fault: McpFault, tool: string): McpFaultAnswer {
  switch (fault.kind) {
    case 'mcp_error_result': {
      const text = fault.message ?? `tool "${tool}" failed (fault injected by a crashlab crash test)`
      return { result: { isError: true, content: [{ type: 'text', text }] } }
    }
    case 'mcp_transport_error':
      return { reject: connectionResetError() }
    case 'mcp_timeout':
      return { reject: timeoutError() }
  }
}
