import { fileURLToPath } from 'node:url'
import type { NormalizedRequest } from '../../../src/case/schema/normalized.ts'
import { modelServer as anyHostModelServer } from '../any-host/provider.ts'

export { log } from '../any-host/provider.ts'

/** The MCP server's command line, with the environment it needs (its log). */
export const ORDERS_SERVER = {
  command: process.execPath,
  args: [fileURLToPath(new URL('./orders-server.mjs', import.meta.url))],
  env: {
    PATH: process.env.PATH ?? '',
    ...(process.env.FIXTURE_LOG && { FIXTURE_LOG: process.env.FIXTURE_LOG }),
  },
}

/**
 * The model: looks the order up, refunds its total, confirms. It reads the tool results as text, since
 * each framework hands an MCP result to the model in its own shape.
 */
function refundOverMcp(request: NormalizedRequest) {
  const last = request.messages.at(-1)
  const result = last?.role === 'tool' ? last.parts.find((p) => p.type === 'tool_result') : undefined
  if (result?.type !== 'tool_result') {
    const text = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ') ?? ''
    const orderId = /\b([A-Z]\d{2})\b/.exec(text)?.[1] ?? 'A17'
    return { toolCalls: [{ name: 'get_order', args: { order_id: orderId } }] }
  }
  const content = result.content.replace(/\\"/g, '"')
  const total = /"total":(\d+)/.exec(content)?.[1]
  if (total) {
    return { toolCalls: [{ name: 'issue_refund', args: { order_id: 'A17', amount: Number(total) } }] }
  }
  return { text: `Done: ${/R-[A-Z]\d{2}/.exec(content)?.[0] ?? 'no refund'} is on its way.` }
}

/** The scripted provider on 127.0.0.1 playing the model above, or with FIXTURE_PROVIDER=off no server. */
export const modelServer = () => anyHostModelServer(refundOverMcp)
