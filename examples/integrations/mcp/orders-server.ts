/**
 * The shop's MCP server, over stdio: the support agent's two tools, served by the official SDK's
 * `McpServer` on the same shop as the other examples (../shared/shop.ts). The agent's framework starts it
 * as a child process (`node orders-server.ts`, Node 22.18+ runs TypeScript as it is); crashlab records
 * what crosses its stdin and stdout, and a replay never starts it.
 *
 * The annotations say which tool changes the world: `get_order` is `readOnlyHint`, `issue_refund`
 * (which moves money) `destructiveHint`. crashlab reads them from the `tools/list` answer and records
 * each call's `sideEffects` from them.
 *
 * Each tool answers one text item holding JSON, which is what the agent hands to the model. When
 * FIXTURE_LOG is set (test/examples-integrations.test.ts sets it) the server appends a line to that file
 * when it starts and for every refund it issues: a replay must add none.
 */
import { appendFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'
// shop.ts only: tools.ts would load crashlab into the server's process.
import { createShop, GET_ORDER_DESCRIPTION, ISSUE_REFUND_DESCRIPTION } from '../shared/shop.ts'

/** The server's name in its `initialize` answer: crashlab names the recorded MCP steps by it. */
export const SERVER_NAME = 'orders-server'

const log = (entry: Record<string, unknown>) => {
  const file = process.env.FIXTURE_LOG
  if (file) appendFileSync(file, `${JSON.stringify({ server: SERVER_NAME, ...entry })}\n`)
}

/** A tool's answer: its value as JSON text, or the error as JSON text with `isError` (MCP's tool failure). */
function answer(run: () => unknown) {
  try {
    return { content: [{ type: 'text' as const, text: JSON.stringify(run()) }] }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { content: [{ type: 'text' as const, text: JSON.stringify({ error: message }) }], isError: true }
  }
}

const shop = createShop()
const server = new McpServer({ name: SERVER_NAME, version: '1.0.0' })

server.registerTool(
  'get_order',
  {
    description: GET_ORDER_DESCRIPTION,
    inputSchema: { order_id: z.string().describe('The order id, e.g. A17') },
    annotations: { readOnlyHint: true },
  },
  async (args) => answer(() => shop.getOrder(args)),
)

server.registerTool(
  'issue_refund',
  {
    description: ISSUE_REFUND_DESCRIPTION,
    inputSchema: { order_id: z.string(), amount: z.number() },
    annotations: { destructiveHint: true, idempotentHint: false },
  },
  async (args) =>
    answer(() => {
      const refund = shop.issueRefund(args)
      log({ event: 'refund', ...args, refund_id: refund.refund_id })
      return refund
    }),
)

log({ event: 'start' })
await server.connect(new StdioServerTransport())
