/**
 * The LangChain.js support agent, tested the crashlab way: each test replays its cassette from
 * `__cassettes__/langchain.spec.ts/` offline under CI, and `node ../record-cassettes.ts` records it
 * again against the scripted provider started here (no key, no network).
 */
import { expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { expectCleanRefund, supportHarness } from '../shared/harness.ts'
import { INPUT } from '../shared/shop.ts'
import { runSupportAgent } from './agent.ts'

const AGENT = 'langchain-support'
// The oracle, the recording-only providers and the violation test: see ../shared/harness.ts.
const { agent } = await supportHarness(AGENT, runSupportAgent)

test(
  'refunds a damaged order through a bindTools loop',
  agentCase(agent, {
    agent: AGENT,
    input: INPUT,
    assert: (run) => {
      expectCleanRefund(run)
      // ChatOpenAI's default API: Chat Completions, not streamed.
      expect(run.llmCalls().map((c) => c.provider)).toEqual(Array(3).fill('openai-chat'))
    },
  }),
)
