import { appendFileSync } from 'node:fs'
import {
  BatchTraceProcessor,
  getGlobalTraceProvider,
  OpenAITracingExporter,
  setTraceProcessors,
  setTracingDisabled,
} from '@openai/agents'
import { afterAll, expect, test } from 'vitest'
import { agentCase } from '../../../plugin/index.ts'
import { startScriptedProvider } from '../../../src/testing/index.ts'
import { answerOrder } from './agent.ts'
import { orderModel } from './model.ts'

// FIXTURE_TRACE_BASE: a server of the parent test that counts the connections it accepts.
const TRACE_URL = `${process.env.FIXTURE_TRACE_BASE ?? 'http://127.0.0.2:9'}/v1/traces/ingest`

// Tracing on, as a project that forgot to turn it off has it: Vitest's NODE_ENV=test turns it off by
// default, setTracingDisabled(false) turns it back on. The SDK's own exporter and batch processor, only
// pointed elsewhere than api.openai.com; the batch is sent by the flush in afterAll (outside any
// test's Session, where a trace exporter's timer also fires), not by the 5 s timer, so that whether it
// is sent does not depend on how long the test takes.
setTracingDisabled(false)
const exporter = new OpenAITracingExporter({
  endpoint: TRACE_URL,
  apiKey: 'fixture-trace-key',
  maxRetries: 2,
  baseDelay: 10,
})
setTraceProcessors([new BatchTraceProcessor(exporter, { scheduleDelay: 600_000 })])

// A live provider for the run that records; a replay must never reach it.
const provider = await startScriptedProvider({ policy: orderModel })
afterAll(async () => {
  await getGlobalTraceProvider().forceFlush()
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (log) appendFileSync(log, `${JSON.stringify({ requests: provider.requests.length, refunds: 0 })}\n`)
})

test(
  'answers where A17 is, through an Agents SDK Runner',
  agentCase((question: string) => answerOrder(question, `${provider.url}/v1`), {
    agent: 'order-bot',
    input: 'Where is my order A17?',
    assert: (run) => {
      expect(run).toCallTool('get_order', { order_id: 'A17' })
      expect(run.finalMessage).toContain('shipped on Monday')
    },
  }),
)
