import { afterAll, describe, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { answerOrder } from './agent.ts'
import { orderModel } from './model.ts'

// A live provider for the run that records; a replay must never reach it.
const provider = await startScriptedProvider({ policy: orderModel })
afterAll(() => provider.close())

describe('orders', () => {
  test(
    'where is A17',
    agentCase(answerOrder, {
      agent: 'order-bot',
      input: { question: 'Where is my order A17?', baseURL: `${provider.url}/v1` },
    }),
  )
})
