import { createRun } from '../../case/create-run.ts'
import type { Part, ToolCallPart } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import type { LlmStep } from '../../case/schema/step.ts'
import { SECRET_CORPUS } from '../../redact/internal/test-corpus.ts'

/**
 * A failing refund-bot run for the report tests, built by hand so that every field a report shows has
 * a known value: markup in the prompt and in a tool result, a real-looking API key in a header and in the
 * user's text, a long tool result that must fold, a tool that threw, two findings with evidence, a
 * failed and a passed check, and per-step costs.
 */

/** A fake OpenAI project key from the redaction corpus: no report may contain it. */
export const PLANTED_SECRET = SECRET_CORPUS.find((e) => e.id === 'openai-project-key')!.secret
export const XSS_PROMPT = 'Refund A17 <script>alert("pwned")</script> please'
export const XSS_RESULT = '<img src=x onerror=alert(1)>'

const T0 = Date.parse('2026-11-01T09:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()
const URL = 'https://api.openai.com/v1/chat/completions'

function llm(
  index: number,
  startMs: number,
  messages: LlmStep['request']['normalized'],
  answer: Part[],
  calls: ToolCallPart[],
): LlmStep {
  return {
    index,
    type: 'llm',
    provider: 'openai-chat',
    endpoint: 'chat.completions',
    timing: { startedAt: at(startMs), durationMs: 600 + index },
    error: null,
    request: {
      wire: {
        method: 'POST',
        url: URL,
        headers: { authorization: `Bearer ${PLANTED_SECRET}`, 'content-type': 'application/json' },
        body: { model: 'gpt-4o-mini', messages: [], note: `key ${PLANTED_SECRET}` },
      },
      normalized: messages,
      requestHash: `sha256:${String(index).repeat(64)}`,
    },
    response: {
      incomplete: false,
      wire: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: { id: `chatcmpl-${index}` },
      },
      normalized: {
        model: 'gpt-4o-mini-2024-07-18',
        requestId: `req_${index}`,
        parts: answer,
        toolCalls: calls,
        finishReason: calls.length ? 'tool_calls' : 'stop',
        usage: { inputTokens: 100 + index, outputTokens: 20 + index },
      },
    },
    cost: {
      usd: 0.0000271,
      catalog: '@pydantic/genai-prices',
      catalogVersion: '0.1.8',
      priceDate: at(startMs),
    },
  }
}

/** The failing run: the model refunds ten times the total, the refund tool refuses, the oracle fails. */
export function buildFailingRun(): Run {
  const run = createRun({
    id: '01M8KQ0000REP0RTFA1L000000',
    name: 'refund-bot',
    input: XSS_PROMPT,
    startedAt: new Date(T0),
    tags: ['report-test'],
  })
  const system = [
    { type: 'text' as const, text: 'You are a refund assistant. Never refund more than the total.' },
  ]
  const user = {
    role: 'user' as const,
    parts: [{ type: 'text' as const, text: `${XSS_PROMPT} my key is ${PLANTED_SECRET}` }],
  }
  const getOrder: ToolCallPart = {
    type: 'tool_call',
    id: 'call_1',
    name: 'get_order',
    args: { order_id: 'A17' },
  }
  const refund: ToolCallPart = {
    type: 'tool_call',
    id: 'call_2',
    name: 'issue_refund',
    args: { order_id: 'A17', amount: 490 },
  }
  const order = {
    order_id: 'A17',
    total: 49,
    note: XSS_RESULT,
    history: Array.from({ length: 40 }, (_, i) => ({ at: at(i * 1000), event: `status update number ${i}` })),
  }
  const tools = [
    { name: 'get_order', parameters: { type: 'object' } },
    { name: 'issue_refund', parameters: { type: 'object' } },
  ]
  const req = (messages: NonNullable<LlmStep['request']['normalized']>['messages']) => ({
    model: 'gpt-4o-mini',
    system,
    messages,
    tools,
    params: {},
  })
  const toolMsg = (id: string, content: string, isError = false) => ({
    role: 'tool' as const,
    parts: [{ type: 'tool_result' as const, id, content, isError }],
  })

  run.steps.push(llm(0, 0, req([user]), [], [getOrder]))
  run.steps.push({
    index: 1,
    type: 'tool',
    name: 'get_order',
    callId: 'call_1',
    args: { order_id: 'A17' },
    result: order,
    sideEffects: false,
    error: null,
    timing: { startedAt: at(700), durationMs: 3 },
  })
  const afterOrder = [
    user,
    { role: 'assistant' as const, parts: [getOrder] },
    toolMsg('call_1', JSON.stringify(order)),
  ]
  run.steps.push(llm(2, 710, req(afterOrder), [{ type: 'text', text: 'Refunding it.' }], [refund]))
  run.steps.push({
    index: 3,
    type: 'tool',
    name: 'issue_refund',
    callId: 'call_2',
    args: { order_id: 'A17', amount: 490 },
    sideEffects: true,
    timing: { startedAt: at(1400), durationMs: 5 },
    error: {
      name: 'RefundError',
      message: 'amount 490 exceeds the order total 49 <b>denied</b>',
      code: 'E_OVER_TOTAL',
    },
  })
  const final = 'Sorry, I could not refund order A17.'
  run.steps.push(
    llm(
      4,
      1410,
      req([
        ...afterOrder,
        { role: 'assistant', parts: [refund] },
        toolMsg('call_2', 'amount 490 exceeds', true),
      ]),
      [{ type: 'text', text: final }],
      [],
    ),
  )
  run.status = 'ok'
  run.outcome = 'fail'
  run.output = final
  run.endedAt = at(2100)
  run.usage = {
    inputTokens: 306,
    outputTokens: 66,
    cachedTokens: 0,
    reasoningTokens: 0,
    llmCalls: 3,
    toolCalls: 2,
  }
  run.cost = { usd: 0.0000813, catalog: '@pydantic/genai-prices', catalogVersion: '0.1.8' }
  run.checks = [
    {
      name: 'refundNeverExceedsTotal',
      passed: false,
      message: 'refund for A17 was 490, above the total of 49',
    },
    { name: 'looksUpFirst', passed: true },
  ]
  run.findings = [
    {
      kind: 'suspicious_tool_result',
      severity: 'warn',
      steps: [1],
      message: 'get_order returned a result with markup in it',
      evidence: [XSS_RESULT],
    },
    {
      kind: 'tool_error_streak',
      severity: 'error',
      steps: [3],
      message: 'issue_refund failed: amount above the order total',
      evidence: ['amount 490 exceeds the order total 49'],
    },
  ]
  return run
}
