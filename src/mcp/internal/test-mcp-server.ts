import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js'
import { lazySchema, zod } from '../../lazy-zod.ts'

/**
 * A real MCP server for tests (the SDK's `McpServer` over Streamable HTTP on loopback): `get_order`
 * reads (annotated `readOnlyHint: true`), `issue_refund` reports a refund over 100 as a failed call
 * (`isError`; annotated `destructiveHint: true`), `add_note` writes a note (no annotations). Each
 * counts its runs.
 */
export interface TestMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string
  /** How many times `issue_refund` ran. */
  refunds: () => number
  /** How many times a tool ran. */
  runs: (tool: 'get_order' | 'issue_refund' | 'add_note') => number
  /** TCP connections the server accepted. */
  connections: () => number
  close: () => Promise<void>
}

const orderShape = lazySchema(() => ({ orderId: zod.string() }))
const refundShape = lazySchema(() => ({ orderId: zod.string(), amount: zod.number() }))
const noteShape = lazySchema(() => ({ orderId: zod.string(), text: zod.string() }))

/** How many times each tool of `ordersServer` ran. */
export type ToolRuns = Record<'get_order' | 'issue_refund' | 'add_note', number>

/**
 * The SDK's `McpServer` named `name` (default `orders-server`): `get_order` reads (`readOnlyHint`),
 * `issue_refund` reports a refund over 100 as a failed call (`isError`; `destructiveHint`), `add_note`
 * writes a note (no annotations). Each counts its runs in `runs`.
 */
export function ordersServer(runs: ToolRuns, name = 'orders-server'): McpServer {
  const server = new McpServer({ name, version: '1.0.0' })
  server.registerTool(
    'get_order',
    {
      description: 'Reads an order',
      inputSchema: { ...orderShape } as ZodRawShapeCompat,
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      const { orderId } = args as { orderId: string }
      runs.get_order++
      return {
        content: [{ type: 'text', text: `order ${orderId}: delivered, broken` }],
        structuredContent: { orderId, status: 'delivered' },
      }
    },
  )
  server.registerTool(
    'issue_refund',
    {
      description: 'Refunds an order',
      inputSchema: { ...refundShape } as ZodRawShapeCompat,
      annotations: { destructiveHint: true },
    },
    async (args) => {
      const { orderId, amount } = args as { orderId: string; amount: number }
      runs.issue_refund++
      if (amount > 100)
        return { content: [{ type: 'text', text: `refund of ${amount} is over the limit` }], isError: true }
      return { content: [{ type: 'text', text: `refunded ${amount} for ${orderId}` }] }
    },
  )
  server.registerTool(
    'add_note',
    { description: 'Adds a note to an order', inputSchema: { ...noteShape } as ZodRawShapeCompat },
    async (args) => {
      const { orderId } = args as { orderId: string }
      runs.add_note++
      return { content: [{ type: 'text', text: `noted on ${orderId}` }] }
    },
  )
  return server
}

/** A fresh count for `ordersServer`. */
export function noRuns(): ToolRuns {
  return { get_order: 0, issue_refund: 0, add_note: 0 }
}

/**
 * Starts one; `json: true` answers POSTs with JSON, else with an SSE stream (the SDK's default). `name`
 * is its `serverInfo.name` (default `orders-server`).
 *
 * @example
 * const server = await startTestMcpServer({ json: false })
 */
export async function startTestMcpServer(options: { json: boolean; name?: string }): Promise<TestMcpServer> {
  const runs = noRuns()
  const served = await serveMcpHttp(() => ordersServer(runs, options.name), { json: options.json })
  return { ...served, refunds: () => runs.issue_refund, runs: (tool) => runs[tool] }
}

/** An MCP server on loopback (`serveMcpHttp`): its endpoint, the TCP connections it accepted, its close. */
export interface ServedMcpHttp {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string
  /** TCP connections the server accepted. */
  connections: () => number
  close: () => Promise<void>
}

/**
 * Serves `newServer()` over Streamable HTTP on 127.0.0.1, on a free port: one `McpServer` and transport
 * per MCP session (a new one for each `initialize`), the `GET` stream and `DELETE` of a session to its
 * transport; `json: true` answers POSTs with JSON, else with an SSE stream.
 *
 * @example
 * const served = await serveMcpHttp(() => new McpServer({ name: 'orders', version: '1.0.0' }), { json: false })
 */
export async function serveMcpHttp(
  newServer: () => McpServer,
  options: { json: boolean },
): Promise<ServedMcpHttp> {
  const transports = new Map<string, StreamableHTTPServerTransport>()
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id']
    let transport = typeof id === 'string' ? transports.get(id) : undefined
    if (!transport) {
      if (req.method !== 'POST') {
        res.writeHead(400).end('no session')
        return
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: options.json,
        onsessioninitialized: (sid) => {
          transports.set(sid, created)
        },
      })
      transport = created
      await newServer().connect(created)
    }
    await transport.handleRequest(req, res)
  }
  const http = await serveLoopback(handle)
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    connections: http.connections,
    close: async () => {
      for (const t of transports.values()) await t.close()
      await http.close()
    },
  }
}

/**
 * An HTTP server on loopback that answers with `handle` (a failure answers 500), counting the TCP
 * connections it accepts; `close` cuts the open ones (an SSE stream too).
 *
 * @example
 * const http = await serveLoopback(async (req, res) => res.end('ok'))
 */
export async function serveLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0
  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(error))
    })
  })
  http.on('connection', () => connections++)
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
  const { port } = http.address() as AddressInfo
  return {
    port,
    connections: () => connections,
    close: async () => {
      http.closeAllConnections()
      await new Promise<void>((r) => http.close(() => r()))
    },
  }
}
