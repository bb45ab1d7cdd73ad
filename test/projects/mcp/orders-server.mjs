// The fixture's MCP server over stdio: an order look-up (read-only) and a refund (destructive). It logs
// its start and every tool it runs to FIXTURE_LOG, so the test counts process starts and executions.
import { appendFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const log = (entry) => {
  if (process.env.FIXTURE_LOG)
    appendFileSync(process.env.FIXTURE_LOG, `${JSON.stringify({ file: 'orders-server', ...entry })}\n`)
}
log({ event: 'start' })

const ORDERS = { A17: { order_id: 'A17', item: 'kettle', total: 49, status: 'delivered damaged' } }
const server = new McpServer({ name: 'orders', version: '1.0.0' })
server.registerTool(
  'get_order',
  {
    description: 'Look up an order by its id',
    inputSchema: { order_id: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ order_id }) => {
    log({ event: 'run', tool: 'get_order' })
    const order = ORDERS[order_id]
    return { content: [{ type: 'text', text: JSON.stringify(order ?? { error: `no order ${order_id}` }) }] }
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
    log({ event: 'run', tool: 'issue_refund' })
    return { content: [{ type: 'text', text: JSON.stringify({ refund_id: `R-${order_id}`, amount }) }] }
  },
)
await server.connect(new StdioServerTransport())
