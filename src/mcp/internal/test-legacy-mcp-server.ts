import type { IncomingMessage, ServerResponse } from 'node:http'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js'
import { lazySchema, zod } from '../../lazy-zod.ts'
import { noRuns, ordersServer, serveLoopback, type TestMcpServer } from './test-mcp-server.ts'

/**
 * A real MCP server over the older HTTP+SSE transport (protocol 2024-11-05) for tests: the SDK's
 * `McpServer` (`ordersServer`) over `SSEServerTransport` on loopback. `GET /sse` opens a session's
 * stream, whose first event names `/messages?sessionId=…`; the POSTs there are answered `202` and their
 * results sent on the stream. Beside the orders tools, `count` sends a progress notification per step
 * (to a call that asks for progress) before its result, and `announce()` has every session's server
 * send `notifications/tools/list_changed` on its own. `GET /events` is a plain SSE stream that is not MCP (two `tick` events,
 * then it ends).
 *
 * @example
 * const server = await startLegacyMcpServer()
 * await client.connect(new SSEClientTransport(new URL(server.url)))
 */
export async function startLegacyMcpServer(): Promise<
  TestMcpServer & { eventsUrl: string; streams: () => number; announce: () => void }
> {
  const runs = noRuns()
  let streams = 0
  const transports = new Map<string, SSEServerTransport>()
  const servers = new Set<McpServer>()

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/sse') {
      streams++
      const transport = new SSEServerTransport('/messages', res)
      transports.set(transport.sessionId, transport)
      const server = withCount(ordersServer(runs))
      servers.add(server)
      res.on('close', () => {
        transports.delete(transport.sessionId)
        servers.delete(server)
      })
      await server.connect(transport)
      return
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '')
      if (!transport) {
        res.writeHead(404).end('no such session')
        return
      }
      await transport.handlePostMessage(req, res)
      return
    }
    if (req.method === 'GET' && url.pathname === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.write('event: tick\ndata: {"n":1}\n\n')
      res.end('event: tick\ndata: {"n":2}\n\n')
      return
    }
    res.writeHead(404).end()
  }

  const http = await serveLoopback(handle)
  const origin = `http://127.0.0.1:${http.port}`
  return {
    url: `${origin}/sse`,
    eventsUrl: `${origin}/events`,
    refunds: () => runs.issue_refund,
    runs: (tool) => runs[tool],
    streams: () => streams,
    announce: () => {
      for (const server of servers) server.sendToolListChanged()
    },
    connections: http.connections,
    close: async () => {
      for (const t of transports.values()) await t.close()
      await http.close()
    },
  }
}

const countShape = lazySchema(() => ({ n: zod.number() }))

/** Adds `count`: `n` progress notifications (when the call asks for progress), then `counted n`. */
function withCount(server: McpServer): McpServer {
  server.registerTool(
    'count',
    { description: 'Counts to n', inputSchema: { ...countShape } as ZodRawShapeCompat },
    async (args, extra) => {
      const { n } = args as { n: number }
      const progressToken = extra._meta?.progressToken
      for (let i = 1; i <= n && progressToken !== undefined; i++)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: i, total: n },
        })
      return { content: [{ type: 'text', text: `counted ${n}` }] }
    },
  )
  return server
}
