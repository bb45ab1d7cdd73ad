import { test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { answerSupport } from '../verify/agent.ts'

// The support bot of the verify fixture, against the scripted provider the test runner started
// (SCRIPTED_URL): without the rule in its system prompt, its answer never names the order, so its
// oracle fails, and the session's tasks take the run.
test(
  'where is A17',
  agentCase(answerSupport, {
    agent: 'support-bot',
    input: { question: 'Where is my order A17?', baseURL: `${process.env.SCRIPTED_URL}/v1` },
  }),
)
