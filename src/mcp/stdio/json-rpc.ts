/**
 * The JSON-RPC 2.0 messages that MCP's stdio transports exchange, one per line, and how to tell them apart.
 */

/** A request or response id. */
export type JsonRpcId = string | number

/** A call that expects an answer with the same `id`. */
export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: JsonRpcId
  method: string
  params?: unknown
}

/** A call that expects no answer. */
export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: unknown
}

/** The error of a failed request. */
export interface JsonRpcError {
  code: number
  message: string
  data?: unknown
}

/** The answer to a request: a `result` or an `error`. */
export interface JsonRpcResponse {
  jsonrpc: '2.0'
  id: JsonRpcId | null
  result?: unknown
  error?: JsonRpcError
}

/** Any message of an MCP stdio session. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse

/**
 * The requests that open an MCP session: `initialize` (every client) and `server/discover`, the version
 * probe that `@ai-sdk/mcp` sends before `initialize` on the same process, and that
 * `@modelcontextprotocol/client` sends on a separate, short-lived process when its version negotiation
 * is on (the Agents SDK's `MCPServerStdio` turns it on).
 *
 * @example
 * OPENING_METHODS.includes(firstRequest.method) // → the spawn is an MCP server
 */
export const OPENING_METHODS: readonly string[] = ['initialize', 'server/discover']

/**
 * The message on one line of a stdio stream, or `undefined` when the line is not a JSON-RPC 2.0 message
 * (a server's log line on stdout, a blank line, a batch).
 *
 * @example
 * parseJsonRpcLine('{"jsonrpc":"2.0","id":1,"method":"tools/list"}') // → the request
 * parseJsonRpcLine('server started')                                // → undefined
 */
export function parseJsonRpcLine(line: string): JsonRpcMessage | undefined {
  const text = line.trim()
  if (!text.startsWith('{')) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const message = value as Record<string, unknown>
  if (message.jsonrpc !== '2.0') return undefined
  if (typeof message.method === 'string') return message as unknown as JsonRpcMessage
  if ('id' in message && ('result' in message || 'error' in message))
    return message as unknown as JsonRpcMessage
  return undefined
}

/**
 * True for a request: a message with a `method` and an `id`.
 *
 * @example
 * isJsonRpcRequest({ jsonrpc: '2.0', id: 3, method: 'tools/call' }) // → true
 */
export function isJsonRpcRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message && message.id !== undefined && message.id !== null
}

/**
 * True for a notification: a message with a `method` and no `id`.
 *
 * @example
 * isJsonRpcNotification({ jsonrpc: '2.0', method: 'notifications/initialized' }) // → true
 */
export function isJsonRpcNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message && message.id !== undefined && message.id !== null)
}

/**
 * True for a response: a message with an `id` and a `result` or an `error`.
 *
 * @example
 * isJsonRpcResponse({ jsonrpc: '2.0', id: 3, result: {} }) // → true
 */
export function isJsonRpcResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !('method' in message) && ('result' in message || 'error' in message)
}
