import { createRun, type JsonValue, type Run } from '../../src/internal.ts'

/**
 * Small hand-built runs for the matchers' tests (not shipped: `test-*` files are excluded from the
 * build): a refund agent that asks the model, looks an order up, refunds it and answers. `amount` and
 * `answer` vary the behaviour and the prose, so a test can change one and keep the other.
 */

const T0 = Date.parse('2026-11-01T09:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

/**
 * A finished refund run: llm → get_order → llm → issue_refund → llm (the answer).
 *
 * @example
 * const run = refundRun({ amount: 490 })
 */
export function refundRun(options: { amount?: number; answer?: string; id?: string } = {}): Run {
  const amount = options.amount ?? 49
  const run = createRun({
    id: options.id ?? '01M8KQ0000MATCHERS00000000',
    name: 'refund-bot',
    input: 'Refund my order A17, it arrived broken',
    startedAt: new Date(T0),
  })
  const calls: { id: string; name: string; args: JsonValue; result: JsonValue }[] = [
    { id: 'call_1', name: 'get_order', args: { order_id: 'A17' }, result: { total: 49 } },
    { id: 'call_2', name: 'issue_refund', args: { order_id: 'A17', amount }, result: { ok: true } },
  ]
  let i = 0
  const llm = (text: string | null, call: (typeof calls)[number] | null): void => {
    const index = run.steps.length
    run.steps.push({
      index,
      type: 'llm',
      provider: 'openai-chat',
      endpoint: 'chat.completions',
      timing: { startedAt: at(index * 100), durationMs: 50 },
      error: null,
      request: {
        wire: { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: null },
        normalized: { model: 'gpt-4o-mini', system: [], messages: [], tools: [], params: {} },
        requestHash: `sha256:${(index + 1).toString(16).padStart(64, '0')}`,
      },
      response: {
        incomplete: false,
        wire: { status: 200, headers: {}, body: null },
        normalized: {
          model: 'gpt-4o-mini',
          requestId: null,
          parts: text === null ? [] : [{ type: 'text', text }],
          toolCalls: call ? [{ type: 'tool_call', id: call.id, name: call.name, args: call.args }] : [],
          finishReason: call ? 'tool_calls' : 'stop',
          usage: { inputTokens: 100, outputTokens: 20 },
        },
      },
    })
    run.usage.llmCalls++
    run.usage.inputTokens += 100
    run.usage.outputTokens += 20
  }
  const tool = (call: (typeof calls)[number]): void => {
    const index = run.steps.length
    run.steps.push({
      index,
      type: 'tool',
      name: call.name,
      callId: call.id,
      args: call.args,
      result: call.result,
      sideEffects: call.name === 'issue_refund',
      timing: { startedAt: at(index * 100), durationMs: 20 },
      error: null,
    })
    run.usage.toolCalls++
  }
  for (const call of calls) {
    llm(i++ === 0 ? 'Let me look that up.' : null, call)
    tool(call)
  }
  const answer = options.answer ?? `I have refunded $${amount} for order A17.`
  llm(answer, null)
  run.status = 'ok'
  run.outcome = 'pass'
  run.output = answer
  run.endedAt = at(run.steps.length * 100)
  return run
}
