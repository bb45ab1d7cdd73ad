/**
 * The Vercel AI SDK support agent, tested the crashlab way: each test replays its cassette from
 * `__cassettes__/vercel-ai.spec.ts/` offline under CI, and `node ../record-cassettes.ts` records it
 * again against the scripted provider started here (no key, no network).
 */
import { expect, test } from 'vitest'
import { agentCase, crashTest } from '../../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { expectCleanRefund, supportHarness } from '../shared/harness.ts'
import { INPUT } from '../shared/shop.ts'
import { runSupportAgent } from './agent.ts'

const AGENT = 'vercel-ai-support'
// The oracle, the recording-only providers and the violation test: see ../shared/harness.ts.
const { agent } = await supportHarness(AGENT, runSupportAgent)

const CLEAN = 'refunds a damaged order through a streamed tool loop'

test(
  CLEAN,
  agentCase(agent, {
    agent: AGENT,
    input: INPUT,
    assert: (run) => {
      expectCleanRefund(run)
      // Streamed: the deltas of both steps reached the caller, at replay as when recording.
      expect(run.output).toMatchObject({
        streamed: `The order arrived damaged; refunding it.${run.finalMessage}`,
      })
    },
  }),
)

// The clean refund again, offline, with a fault in place of one recorded answer: a 429 at each model
// call (the AI SDK retries it, and the retry is replayed: survived), and a proxy's HTML page in place of
// each tool's result (the AI SDK hands the page to the model, whose next request the recording never
// saw: diverged, which passes and says what the agent asked for).
crashTest(CLEAN, agent, {
  agent: AGENT,
  input: INPUT,
  faults: [{ kind: 'rate_limit' }, { kind: 'tool_html_error' }],
})
