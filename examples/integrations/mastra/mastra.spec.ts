/**
 * The Mastra support agent, tested the crashlab way: each test replays its cassette from
 * `__cassettes__/mastra.spec.ts/` offline under CI, and `node ../record-cassettes.ts` records it
 * again against the scripted provider started here (no key, no network).
 */
import { expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { expectCleanRefund, supportHarness } from '../shared/harness.ts'
import { INPUT } from '../shared/shop.ts'
import { runSupportAgent } from './agent.ts'

const AGENT = 'mastra-support'
// The oracle, the recording-only providers and the violation test: see ../shared/harness.ts.
const { agent } = await supportHarness(AGENT, runSupportAgent)

test(
  'refunds a damaged order through agent.generate',
  agentCase(agent, {
    agent: AGENT,
    input: INPUT,
    assert: (run) => {
      expectCleanRefund(run)
      // The model router with a `url` speaks Chat Completions; the tool calls as Mastra reports them.
      expect(run.llmCalls().map((c) => c.provider)).toEqual(Array(3).fill('openai-chat'))
      expect(run.output).toMatchObject({ tools: ['get_order', 'issue_refund'] })
    },
  }),
)
