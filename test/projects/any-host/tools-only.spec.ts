import { expect, test } from 'vitest'
import { refundTools } from '../../../examples/refund-bot/agent.ts'
import { createShop } from '../../../examples/refund-bot/shop.ts'
import { agentCase } from '../../../plugin/index.ts'

// An agent whose model calls crashlab never sees (here: it makes none): it runs its tools only. The
// reporter warns about it.
test(
  'an agent that only runs tools',
  agentCase(async (orderId: string) => refundTools(createShop()).get_order({ order_id: orderId }), {
    agent: 'lookup-only',
    input: 'A17',
    assert: (run) => expect(run.toolCalls('get_order')).toHaveLength(1),
  }),
)
