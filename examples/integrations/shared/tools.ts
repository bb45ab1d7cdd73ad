import { tool } from '../../../src/index.ts' // in your project: 'crashlab'
import type { Order, Shop } from './shop.ts'

/**
 * The bodies of the support agent's two tools, wrapped with crashlab's `tool()`: recorded in a recorded
 * run, served from the cassette in a replay (where `issue_refund`, which moves money, never runs).
 * Each framework's agent declares the tools its own way and calls these inside.
 *
 * @example
 * const { getOrder, issueRefund } = supportTools(createShop())
 * await getOrder({ order_id: 'A17' }) // { order_id: 'A17', total: 49, status: 'delivered' }
 */
export function supportTools(shop: Shop) {
  return {
    getOrder: tool(async (args: { order_id: string }): Promise<Order> => shop.getOrder(args), {
      name: 'get_order',
      sideEffects: false,
    }),
    issueRefund: tool(
      async (args: { order_id: string; amount: number }): Promise<{ ok: true; refund_id: string }> =>
        shop.issueRefund(args),
      { name: 'issue_refund', sideEffects: true },
    ),
  }
}

/** The tools' descriptions, the same for every framework (kept in shop.ts, which the MCP server imports). */
export { GET_ORDER_DESCRIPTION, ISSUE_REFUND_DESCRIPTION } from './shop.ts'
