import { randomUUID } from 'node:crypto'

/**
 * The world every integration's support agent works on: an order book and a refund ledger. Refund ids
 * are random, as a payment API's are: a tool result that differs on every run is what breaks replay
 * matching when the tool is not wrapped with crashlab's `tool()` (the next model request carries the
 * result, so its hash changes). Wrapped, the replay serves the recorded id and never runs the tool.
 */

export interface Order {
  order_id: string
  total: number
  status: 'delivered' | 'shipped' | 'cancelled'
}

export interface Refund {
  order_id: string
  amount: number
  refund_id: string
}

export const ORDERS: readonly Order[] = [
  { order_id: 'A17', total: 49, status: 'delivered' },
  { order_id: 'B42', total: 120, status: 'delivered' },
  { order_id: 'C08', total: 15.5, status: 'shipped' },
]

/** A shop with its own ledger: each agent run gets a fresh one, so tests never share state. */
export function createShop(orders: readonly Order[] = ORDERS) {
  const byId = new Map(orders.map((o) => [o.order_id, o]))
  const refunds: Refund[] = []
  return {
    refunds,
    /** Looks an order up; an unknown id is an error the model is told about. */
    getOrder(args: { order_id: string }): Order {
      const order = byId.get(args.order_id)
      if (!order) throw new Error(`no order ${args.order_id}`)
      return order
    },
    /** Moves money: the side effect the oracle guards. It trusts the amount it is given. */
    issueRefund(args: { order_id: string; amount: number }): { ok: true; refund_id: string } {
      if (!byId.has(args.order_id)) throw new Error(`no order ${args.order_id}`)
      const refund_id = `rf_${randomUUID().slice(0, 8)}`
      refunds.push({ order_id: args.order_id, amount: args.amount, refund_id })
      return { ok: true, refund_id }
    },
  }
}

export type Shop = ReturnType<typeof createShop>

/** The support agent's instructions, the same for every framework. */
export const INSTRUCTIONS =
  'You are the support assistant of a small shop. Look the order up with get_order before anything else. ' +
  'Refund damaged orders with issue_refund. Never refund more than the order total.'

/** The tools' descriptions, the same for every framework and for the MCP server (../mcp/orders-server.ts). */
export const GET_ORDER_DESCRIPTION = 'Look up an order by its id'
export const ISSUE_REFUND_DESCRIPTION = 'Refund an amount in USD for an order. This moves money.'

/** What the customer writes in every example. */
export const INPUT = 'Refund my order A17, it arrived broken'
