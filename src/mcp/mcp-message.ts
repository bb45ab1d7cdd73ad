/**
 * The methods a client sends an MCP server (and `notifications/*`, which both sides send). A JSON-RPC
 * message with another method is not MCP: `eth_call`, a language server's `textDocument/hover`.
 */
const CLIENT_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  // The version probe newer clients open with (`@ai-sdk/mcp`, the Agents SDK's negotiation).
  'server/discover',
])

/**
 * One JSON-RPC 2.0 message of MCP, as crashlab reads it: a request (method and id), a notification
 * (method, no id) or a response to a server's request (id, and result or error).
 */
export type McpMessage =
  | { kind: 'request'; method: string; id: string | number; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: string | number | null; result?: unknown; error?: unknown }

/**
 * The MCP messages a request body holds, or undefined when it is not MCP: a JSON-RPC 2.0 message or a
 * non-empty batch of them, each with `jsonrpc: '2.0'`, whose methods are MCP's (`initialize`,
 * `tools/call`, `resources/read`, `notifications/*`, …) or a response to a server's request. At least
 * one message of a batch must carry an MCP method: a batch of bare responses says nothing about its
 * protocol, unless `responsesAlone` (the request carries MCP's session headers). Recognised by the body alone, never by the path: MCP's older HTTP+SSE transport posts to
 * `/messages`, as Anthropic's Messages API is posted to `/v1/messages`.
 *
 * @example
 * readMcpMessages({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_order' } })
 * // [{ kind: 'request', method: 'tools/call', id: 1, params: { name: 'get_order' } }]
 * readMcpMessages({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [] }) // undefined
 * readMcpMessages({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [] }) // undefined
 */
export function readMcpMessages(
  body: unknown,
  options: { responsesAlone?: boolean } = {},
): McpMessage[] | undefined {
  const list = Array.isArray(body) ? body : [body]
  if (list.length === 0) return undefined
  const out: McpMessage[] = []
  for (const item of list) {
    const message = readMessage(item)
    if (!message) return undefined
    out.push(message)
  }
  return options.responsesAlone || out.some((m) => m.kind !== 'response') ? out : undefined
}

/**
 * True when a request body is MCP (see `readMcpMessages`).
 *
 * @example
 * isMcpRequest({ jsonrpc: '2.0', method: 'notifications/initialized' }) // true
 * isMcpRequest({ jsonrpc: '2.0', id: 7, method: 'eth_call', params: [] }) // false
 */
export function isMcpRequest(body: unknown): boolean {
  return readMcpMessages(body) !== undefined
}

/**
 * True for an MCP method name: a method a client sends a server, or a notification.
 *
 * @example
 * isMcpMethod('tools/call') // true
 * isMcpMethod('eth_call')   // false
 */
export function isMcpMethod(method: string): boolean {
  return CLIENT_METHODS.has(method) || method.startsWith('notifications/')
}

function readMessage(item: unknown): McpMessage | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined
  const m = item as Record<string, unknown>
  if (m.jsonrpc !== '2.0') return undefined
  if (typeof m.method === 'string') {
    if (!isMcpMethod(m.method)) return undefined
    if (m.id === undefined) return { kind: 'notification', method: m.method, params: m.params }
    if (typeof m.id !== 'string' && typeof m.id !== 'number') return undefined
    return { kind: 'request', method: m.method, id: m.id, params: m.params }
  }
  if (m.id === undefined || !('result' in m || 'error' in m)) return undefined
  if (m.id !== null && typeof m.id !== 'string' && typeof m.id !== 'number') return undefined
  return { kind: 'response', id: m.id, result: m.result, error: m.error }
}

/** The header an MCP request carries once its session is set up (Streamable HTTP). */
const MCP_HEADERS = ['mcp-session-id', 'mcp-protocol-version']

/**
 * Whether a bodiless request is MCP's: a GET (the stream for a server's own messages) or a DELETE (the
 * end of a session) that carries `Mcp-Session-Id` or `MCP-Protocol-Version`. Such requests have no body
 * to recognise them by, so these headers, which the Streamable HTTP transport sends on every request
 * after `initialize`, decide.
 *
 * @example
 * isMcpStreamRequest('GET', new Headers({ 'mcp-session-id': 'a1' })) // true
 * isMcpStreamRequest('GET', new Headers())                           // false
 */
export function isMcpStreamRequest(method: string, headers: Headers): boolean {
  if (method !== 'GET' && method !== 'DELETE') return false
  return MCP_HEADERS.some((name) => headers.has(name))
}

/**
 * Whether a request may open the stream of MCP's older HTTP+SSE transport (protocol 2024-11-05): a GET
 * that accepts `text/event-stream` and carries none of MCP's session headers. Whether it is MCP shows
 * only in what the server sends: the stream's first event is `endpoint`, naming the URL to POST to.
 *
 * @example
 * mayOpenLegacyMcpStream('GET', new Headers({ accept: 'text/event-stream' })) // true
 * mayOpenLegacyMcpStream('GET', new Headers({ accept: 'application/json' })) // false
 */
export function mayOpenLegacyMcpStream(method: string, headers: Headers): boolean {
  if (method !== 'GET' || MCP_HEADERS.some((name) => headers.has(name))) return false
  return (headers.get('accept') ?? '').toLowerCase().includes('text/event-stream')
}

/**
 * The MCP messages of a fetch `Request` read from a clone (the request stays unread), or undefined when
 * it is not a JSON POST whose body is MCP (a bare JSON-RPC response counts with MCP's session headers). Cheap for everything else: no body is read unless the
 * request is a POST with a JSON content type, and none is parsed unless it names `jsonrpc`.
 *
 * @example
 * const messages = await readMcpRequest(request) // in an MSW handler
 */
export async function readMcpRequest(request: Request): Promise<McpMessage[] | undefined> {
  if (request.method !== 'POST' || !request.body) return undefined
  if (!(request.headers.get('content-type') ?? '').toLowerCase().includes('json')) return undefined
  let text: string
  try {
    text = await request.clone().text()
  } catch {
    return undefined
  }
  if (!text.includes('"jsonrpc"')) return undefined
  try {
    // The client's answer to a server's request (sampling, elicitation) is a bare JSON-RPC response:
    // MCP's when it carries the session's headers.
    const responsesAlone = MCP_HEADERS.some((name) => request.headers.has(name))
    return readMcpMessages(JSON.parse(text), { responsesAlone })
  } catch {
    return undefined
  }
}
