import { afterAll, describe, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { answerOrder } from '../replay/agent.ts'
import { orderModel } from '../replay/model.ts'

// Two agentCase tests that record, then replay: one passes, one fails by its oracle (at record and at
// replay alike), so that its annotation names the run and the command that reports it.
const provider = await startScriptedProvider({ policy: orderModel })
afterAll(() => provider.close())
const baseURL = `${provider.url}/v1`

describe('orders', () => {
  test(
    'where is A17',
    agentCase(answerOrder, { agent: 'order-bot', input: { question: 'Where is my order A17?', baseURL } }),
  )

  test(
    'where is A18',
    agentCase(answerOrder, {
      agent: 'order-bot',
      input: { question: 'Where is my order A18?', baseURL },
      oracles: [{ name: 'says-shipped', fn: (run) => run.steps.length === 0 }],
    }),
  )
})
