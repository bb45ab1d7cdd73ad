import type { JsonValue } from '../schema/json.ts'
import type { Run } from '../schema/run.ts'
import type { HttpStep, McpCall, Step, ToolStep } from '../schema/step.ts'

/**
 * MCP steps for tests (not shipped: `test-*` files are excluded from the build), shaped as
 * `src/mcp/mcp-exchange.ts` records them over Streamable HTTP: a `tools/call` as a `tool` step with
 * `mcp`, every other message as an `http` step labelled `mcp:<method>`, answers framed as SSE with a
 * session id and arrival times.
 */

const URL_ = 'http://127.0.0.1:3001/mcp'

/** What makes one recording differ from another of the same calls: the session id and the timings. */
export interface McpWire {
  sessionId?: string
  /** Added to every SSE chunk's arrival time. */
  atMs?: number
  /** The JSON-RPC id of the first request. */
  rpcId?: number
}

function exchange(
  method: string,
  params: JsonValue | undefined,
  answer: JsonValue | undefined,
  wire: McpWire,
): Pick<McpCall, 'request' | 'response'> {
  const id = wire.rpcId ?? 1
  const body: Record<string, JsonValue> = { jsonrpc: '2.0', method }
  if (answer !== undefined) body.id = id
  if (params !== undefined) body.params = params
  const session = wire.sessionId ?? 'a1b2c3d4-0000-4000-8000-000000000001'
  return {
    request: {
      method: 'POST',
      url: URL_,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body,
    },
    response:
      answer === undefined
        ? { status: 202, headers: { 'mcp-session-id': session }, body: null }
        : {
            status: 200,
            headers: { 'content-type': 'text/event-stream', 'mcp-session-id': session },
            body: null,
            chunks: [
              {
                event: 'message',
                data: JSON.stringify({ jsonrpc: '2.0', id, result: answer }),
                atMs: wire.atMs ?? 3,
              },
            ],
          },
  }
}

/**
 * The `mcp` field of a `tools/call` step.
 *
 * @example
 * mcpCall('orders-server', 'get_order', { orderId: 'A17' }, { content: [] })
 */
export function mcpCall(
  server: string,
  name: string,
  args: JsonValue,
  result: JsonValue,
  wire: McpWire = {},
): McpCall {
  const isError = (result as { isError?: unknown } | null)?.isError === true
  return {
    server,
    method: 'tools/call',
    ...(isError ? { isError } : {}),
    ...exchange('tools/call', { name, arguments: args }, result, wire),
  }
}

/**
 * An MCP `tools/call` step whose result is the MCP result (`content`, `isError`).
 *
 * @example
 * mcpToolStep(3, 'orders-server', 'issue_refund', { orderId: 'A17', amount: 500 }, 'over the limit', true)
 */
export function mcpToolStep(
  index: number,
  server: string,
  name: string,
  args: JsonValue,
  text: string,
  isError = false,
  wire: McpWire = {},
): ToolStep {
  const result = { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) }
  return {
    index,
    type: 'tool',
    name,
    args,
    result,
    sideEffects: true,
    timing: { startedAt: '2026-11-01T09:00:00.000Z', durationMs: 7 + (wire.atMs ?? 0) },
    error: null,
    mcp: mcpCall(server, name, args, result, wire),
  }
}

/**
 * An `http` step of an MCP message that is not a tool call: `mcp:initialize`, `mcp:tools/list`,
 * `mcp:notifications/initialized` (a notification: answered `202` with no body).
 *
 * @example
 * mcpHttpStep(1, 'tools/list', {}, { tools: [] })
 */
export function mcpHttpStep(
  index: number,
  method: string,
  params?: JsonValue,
  answer?: JsonValue,
  wire: McpWire = {},
): HttpStep {
  const { request, response } = exchange(method, params, answer, wire)
  return {
    index,
    type: 'http',
    label: `mcp:${method}`,
    timing: { startedAt: '2026-11-01T09:00:00.000Z', durationMs: 2 + (wire.atMs ?? 0) },
    error: null,
    request,
    response,
  }
}

/** The labels of `mcpHandshake`'s steps, in order. */
export const MCP_HANDSHAKE_LABELS = ['mcp:initialize', 'mcp:notifications/initialized', 'mcp:tools/list']

/** The handshake a Streamable HTTP client makes before its first call, and its `tools/list`. */
export function mcpHandshake(first: number, server: string, wire: McpWire = {}): HttpStep[] {
  return [
    mcpHttpStep(
      first,
      'initialize',
      {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'refund-bot', version: '1.0.0' },
      },
      {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: server, version: '1.0.0' },
      },
      wire,
    ),
    mcpHttpStep(first + 1, 'notifications/initialized', undefined, undefined, wire),
    mcpHttpStep(
      first + 2,
      'tools/list',
      {},
      { tools: [{ name: 'get_order', inputSchema: { type: 'object' } }] },
      wire,
    ),
  ]
}

/**
 * A copy of a run in which every wrapped tool step is an MCP call to `server` (its result becomes MCP's
 * `{ content, isError }`, an error result `isError: true`), with the MCP handshake before the first
 * tool step; steps are numbered again.
 *
 * @example
 * const run = asMcpRun(buildAgentRun([...]))
 */
export function asMcpRun(source: Run, server = 'orders-server', wire: McpWire = {}): Run {
  const run = structuredClone(source)
  const steps: Step[] = []
  let handshaken = false
  for (const step of run.steps) {
    if (step.type === 'tool') {
      if (!handshaken) {
        steps.push(...mcpHandshake(steps.length, server, wire))
        handshaken = true
      }
      const failed = step.error !== null
      const text = failed ? step.error!.message : JSON.stringify(step.result ?? null)
      const mcp = mcpToolStep(steps.length, server, step.name, step.args, text, failed, wire)
      steps.push({
        ...mcp,
        timing: step.timing,
        ...(step.callId === undefined ? {} : { callId: step.callId }),
        ...(step.blocked === undefined ? {} : { blocked: step.blocked }),
      })
      continue
    }
    steps.push({ ...step, index: steps.length })
  }
  run.steps = steps
  return run
}
