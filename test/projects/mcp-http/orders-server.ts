import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { expect } from 'vitest'
import { z } from 'zod'
import type { AgentCaseOptions } from '../../../plugin/index.ts'
import { serveMcpHttp } from '../../../src/mcp/internal/test-mcp-server.ts'
import { closedPort } from '../any-host/provider.ts'
import { log, modelServer } from '../mcp/provider.ts'

const ORDERS: Record<string, object> = {
  A17: { order_id: 'A17', item: 'kettle', total: 49, status: 'delivered damaged' },
  A18: { order_id: 'A18', item: 'toaster', total: 30, status: 'delivered damaged' },
}

/**
 * The fixture's MCP server over Streamable HTTP, in the spec file's process on 127.0.0.1: an order
 * look-up (read-only) and a refund (destructive), answering as test/projects/mcp's stdio server does.
 * `close()` logs to FIXTURE_LOG the TCP connections it accepted and the tools it ran. With
 * FIXTURE_MCP=off no server starts and the URL names a port nothing listens on.
 */
export async function ordersServer(file: string): Promise<{ url: string; close: () => Promise<void> }> {
  if (process.env.FIXTURE_MCP === 'off') {
    return { url: `http://127.0.0.1:${await closedPort()}/mcp`, close: async () => {} }
  }
  const runs = { get_order: 0, issue_refund: 0 }
  const served = await serveMcpHttp(
    () => {
      const server = new McpServer({ name: 'orders', version: '1.0.0' })
      server.registerTool(
        'get_order',
        {
          description: 'Look up an order by its id',
          inputSchema: { order_id: z.string() },
          annotations: { readOnlyHint: true },
        },
        async ({ order_id }) => {
          runs.get_order++
          const order = ORDERS[order_id] ?? { error: `no order ${order_id}` }
          return { content: [{ type: 'text', text: JSON.stringify(order) }] }
        },
      )
      server.registerTool(
        'issue_refund',
        {
          description: 'Refund an amount in USD for an order.',
          inputSchema: { order_id: z.string(), amount: z.number() },
          annotations: { destructiveHint: true },
        },
        async ({ order_id, amount }) => {
          runs.issue_refund++
          return { content: [{ type: 'text', text: JSON.stringify({ refund_id: `R-${order_id}`, amount }) }] }
        },
      )
      return server
    },
    { json: false },
  )
  return {
    url: served.url,
    close: async () => {
      await served.close()
      log({ file, event: 'orders-server', connections: served.connections(), runs })
    },
  }
}

/**
 * A spec file's servers: the scripted model (test/projects/mcp's) and the MCP server. `close()` closes
 * both and logs the model's requests.
 */
export async function fixtureServers(file: string) {
  const model = await modelServer()
  const orders = await ordersServer(file)
  return {
    model,
    orders,
    close: async () => {
      await orders.close()
      log({ file, requests: model.requests() })
      await model.close()
    },
  }
}

/** The agentCase assertion of both spec files: the order looked up once, refunded once, said so. */
export const refunded: AgentCaseOptions<string>['assert'] = (run) => {
  expect(run.toolCalls('get_order')).toHaveLength(1)
  expect(run.toolCalls('issue_refund')).toHaveLength(1)
  expect(run.output).toContain('R-A17')
}
