import { appendFileSync } from 'node:fs'
import { afterAll, expect } from 'vitest'
import { test } from '../../../plugin/index.ts' // in your project: 'crashlab/vitest'
import { check, type RunView } from '../../../src/index.ts' // in your project: 'crashlab'
import { startScriptedProvider } from '../../../src/testing/index.ts' // in your project: 'crashlab/testing'
import { refundNeverExceedsTotal } from './oracles.ts'
import { createShop, INPUT, type Refund, type Shop } from './shop.ts'
import { supportModel } from './support-model.ts'

/** A framework's support agent: answers `input` through the model at `baseURL`, with its own shop. */
export type SupportAgent = (input: string, options: { baseURL: string; shop: Shop }) => Promise<unknown>

/**
 * What every integration spec shares: the refund oracle registered for `agentName`; two stand-ins for
 * the live model, only asked while recording (one obeys the refund cap, one refunds ten times the total;
 * seeded, so a re-record makes the same decisions); the refunds really issued, logged with the
 * providers' request counts for test/examples-integrations.test.ts; and the test that the oracle catches
 * the violating model. Returns the agent bound to the obeying provider, for the spec's own test.
 */
export async function supportHarness(agentName: string, run: SupportAgent) {
  check(agentName, refundNeverExceedsTotal)
  const obeying = await startScriptedProvider({ policy: supportModel(), seed: 1 })
  const violating = await startScriptedProvider({ policy: supportModel({ violationRate: 1 }), seed: 1 })
  const refunds: Refund[] = []
  const agentAt = (url: string) => async (input: string) => {
    const shop = createShop()
    try {
      return await run(input, { baseURL: `${url}/v1`, shop })
    } finally {
      refunds.push(...shop.refunds)
    }
  }
  afterAll(async () => {
    await Promise.all([obeying.close(), violating.close()])
    const log = process.env.FIXTURE_LOG
    const requests = obeying.requests.length + violating.requests.length
    if (log) appendFileSync(log, `${JSON.stringify({ requests, refunds: refunds.length })}\n`)
  })
  test('the oracle catches a model that refunds ten times the total', async ({ agent }) => {
    const violation = await agent.run(agentAt(violating.url), { name: agentName, input: INPUT })
    expect(violation.outcome).toBe('fail')
    expect(violation).toCallTool('issue_refund', { order_id: 'A17', amount: 490 })
    expect(violation.checks.find((c) => !c.passed)?.message).toContain('490')
  })
  return { agent: agentAt(obeying.url) }
}

/**
 * The expectations of the clean refund, the same for every framework: the checks pass, the order is
 * looked up and refunded in full, and the answer quotes the refund id the tool returned (random when
 * recorded: a replay serves the recorded one), whether the tool is a `tool()` or on an MCP server.
 */
export function expectCleanRefund(run: RunView): void {
  expect(run).toPassChecks({ requireChecks: true })
  expect(run).toCallTool('get_order', { order_id: 'A17' })
  expect(run).toCallTool('issue_refund', { order_id: 'A17', amount: 49 })
  const refundId = resultData(run.toolCalls('issue_refund')[0]?.result).refund_id
  expect(refundId).toMatch(/^rf_/)
  expect(run.finalMessage).toContain(String(refundId))
}

/**
 * A tool's result as data: a `tool()` result as it is, an MCP result (`{ content: [{ type: 'text', text }] }`)
 * by the JSON of its text, which is how the example's MCP server answers.
 */
export function resultData(result: unknown): Record<string, unknown> {
  const content = (result as { content?: unknown } | undefined)?.content
  if (!Array.isArray(content)) return (result ?? {}) as Record<string, unknown>
  const text = content.find((c): c is { type: 'text'; text: string } => c?.type === 'text')?.text
  return text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>)
}
