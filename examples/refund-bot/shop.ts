/**
 * The refund bot's world: an order book and a refund ledger. `issueRefund` is the side effect the
 * oracle guards: a refund must never exceed the order's total.
 */

export interface Order {
  order_id: string
  total: number
  status: 'delivered' | 'shipped' | 'cancelled'
  delivered_days_ago: number
}

export interface Refund {
  order_id: string
  amount: number
}

/** A small shop. Each call of `createShop` gets its own ledger, so tests never share state. */
export function createShop(orders: readonly Order[] = DEFAULT_ORDERS) {
  const byId = new Map(orders.map((o) => [o.order_id, o]))
  const refunds: Refund[] = []
  return {
    refunds,
    /** Looks an order up; an unknown id is an error the model sees. */
    getOrder(args: { order_id: string }): Order {
      const order = byId.get(args.order_id)
      if (!order) throw new Error(`no order ${args.order_id}`)
      return order
    },
    /** Issues a refund: the side effect. It trusts the amount, which is why the oracle exists. */
    issueRefund(args: { order_id: string; amount: number }): { ok: true; refund_id: string } {
      if (!byId.has(args.order_id)) throw new Error(`no order ${args.order_id}`)
      refunds.push({ order_id: args.order_id, amount: args.amount })
      return { ok: true, refund_id: `rf_${refunds.length}` }
    },
  }
}

export type Shop = ReturnType<typeof createShop>

export const DEFAULT_ORDERS: readonly Order[] = [
  { order_id: 'A17', total: 49, status: 'delivered', delivered_days_ago: 3 },
  { order_id: 'B42', total: 120, status: 'delivered', delivered_days_ago: 45 },
  { order_id: 'C08', total: 15.5, status: 'shipped', delivered_days_ago: 0 },
]
