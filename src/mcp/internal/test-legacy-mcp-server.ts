import type { IncomingMessage, ServerResponse } from 'node:http'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { ordersServer, serveLoopback, type TestMcpServer } from './test-mcp-server.ts'

/**
 * A real MCP server over the older HTTP+SSE transport (protocol 2024-11-05) for tests: the SDK's
 * `McpServer` (`ordersServer`) over `SSEServerTransport` on loopback. `GET /sse` opens a session's
 * stream, whose first event names `/messages?sessionId=…`; the POSTs there are answered `202` and their
 * results sent on the stream. `GET /events` is a plain SSE stream that is not MCP (two `tick` events,
 * then it ends).
 *
 * @example
 * const server = await startLegacyMcpServer()
 * await client.connect(new SSEClientTransport(new URL(server.url)))
 */
export async function startLegacyMcpServer(): Promise<
  TestMcpServer & { eventsUrl: string; streams: () => number }
> {
  let refunds = 0
  let streams = 0
  const transports = new Map<string, SSEServerTransport>()

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/sse') {
      streams++
      const transport = new SSEServerTransport('/messages', res)
      transports.set(transport.sessionId, transport)
      res.on('close', () => transports.delete(transport.sessionId))
      await ordersServer(() => refunds++).connect(transport)
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
    refunds: () => refunds,
    streams: () => streams,
    connections: http.connections,
    close: async () => {
      for (const t of transports.values()) await t.close()
      await http.close()
    },
  }
}
