import { expect } from 'vitest'
import type { RunView } from '../../../src/index.ts' // in your project: 'crashlab'
import { ORDERS } from './shop.ts'

/**
 * The support agent's oracle, registered by each spec for its agent with `check(name, …)`: no refund
 * may exceed the order's total. It reads the trajectory only (the tool calls the model made), so it
 * grades a recorded run and its replay alike, whatever the framework.
 *
 * @example
 * check('vercel-ai-support', refundNeverExceedsTotal)
 */
export function refundNeverExceedsTotal(run: RunView): void {
  for (const call of run.toolCalls<{ order_id: string; amount: number }>('issue_refund', { okOnly: true })) {
    const order = ORDERS.find((o) => o.order_id === call.args.order_id)
    expect(order, `refund for unknown order ${call.args.order_id}`).toBeDefined()
    expect(call.args.amount, `refund for ${call.args.order_id}`).toBeLessThanOrEqual(order?.total ?? 0)
  }
}
