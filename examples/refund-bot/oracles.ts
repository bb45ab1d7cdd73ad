import { expect } from 'vitest'
import { check } from '../../src/index.ts'
import { DEFAULT_ORDERS } from './shop.ts'

/**
 * The refund bot's oracle, for every run of the agent named `refund-bot`: no refund may exceed the
 * order's total. It reads the trajectory only (the tool calls the model made), so it works on a live
 * run, a replay and a stored cassette alike.
 */
export const unregister = check('refund-bot', function refundNeverExceedsTotal(run) {
  for (const call of run.toolCalls<{ order_id: string; amount: number }>('issue_refund', { okOnly: true })) {
    const order = DEFAULT_ORDERS.find((o) => o.order_id === call.args.order_id)
    expect(order, `refund for unknown order ${call.args.order_id}`).toBeDefined()
    expect(call.args.amount, `refund for ${call.args.order_id}`).toBeLessThanOrEqual(order!.total)
  }
})
