/**
 * The OpenAI Agents SDK support agent, tested the crashlab way: each test replays its cassette from
 * `__cassettes__/openai-agents.spec.ts/` offline under CI, and `node ../record-cassettes.ts` records it
 * again against the scripted provider started here (no key, no network).
 */
import { expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { expectCleanRefund, supportHarness } from '../shared/harness.ts'
import { INPUT } from '../shared/shop.ts'
import { runSupportAgent } from './agent.ts'

const AGENT = 'openai-agents-support'
// The oracle, the recording-only providers and the violation test: see ../shared/harness.ts.
const { agent } = await supportHarness(AGENT, runSupportAgent)

test(
  'refunds a damaged order through a Runner tool loop',
  agentCase(agent, {
    agent: AGENT,
    input: INPUT,
    assert: (run) => {
      expectCleanRefund(run)
      // The SDK's default API, and the tool calls as the SDK's own result reports them.
      expect(run.llmCalls().map((c) => c.provider)).toEqual(Array(3).fill('openai-responses'))
      expect(run.output).toMatchObject({ tools: ['get_order', 'issue_refund'] })
    },
  }),
)
