import type { Run } from '../../schema/run.ts'
import type { LlmStep } from '../../schema/step.ts'

/**
 * One hand-built run with every kind of step and every run-level field set, for the conversion tests
 * (not shipped: `test-*` files are excluded from the build). The story: a refund agent asks the model,
 * gets a 429, retries the same request and receives a streamed answer with a tool call, looks the order
 * up, fails to issue the refund (the tool throws), lists models over plain HTTP, and dies on a timeout.
 */

const T0 = Date.parse('2026-07-14T09:30:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

const request: LlmStep['request'] = {
  wire: {
    method: 'POST',
    url: 'https://api.openai.com/v1/chat/completions',
    headers: { authorization: '[REDACTED:sensitive-key]', 'content-type': 'application/json' },
    body: {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Refund my order A17, it arrived broken' }],
    },
  },
  normalized: {
    model: 'gpt-4o-mini',
    system: [{ type: 'text', text: 'You are a refund agent. Never refund more than 49 €.' }],
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Refund my order A17, it arrived broken' }] }],
    tools: [
      {
        name: 'get_order',
        description: 'Looks an order up',
        parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      },
    ],
    params: { temperature: 0.2, maxTokens: 256, stream: true, extra: { reasoning_effort: 'low' } },
  },
  requestHash: 'sha256:7f1e0c',
}

/**
 * The sample run. A fresh object on every call, so a test that mutates it cannot affect another.
 *
 * @example
 * const run = buildSampleRun()
 * expect(fromAgentCase(toAgentCase(run))).toStrictEqual(run)
 */
export function buildSampleRun(): Run {
  return {
    id: '01J2ZK3M4N5P6Q7R8S9T0V1W2X',
    name: 'refund-bot',
    tags: ['refund', 'smoke'],
    status: 'error',
    outcome: 'fail',
    completeness: 'complete',
    input: { message: 'Refund my order A17, it arrived broken', locale: 'fr-FR' },
    output: null,
    error: { name: 'AgentTimeout', message: 'the agent gave up after 30 s', code: 'E_TIMEOUT' },
    entryPoint: { kind: 'module', module: './agents/refund.ts', export: 'runRefundBot' },
    startedAt: at(0),
    endedAt: at(9000),
    usage: {
      inputTokens: 120,
      outputTokens: 30,
      cachedTokens: 0,
      reasoningTokens: 4,
      llmCalls: 2,
      toolCalls: 2,
    },
    cost: { usd: 0.00042, catalog: 'builtin', catalogVersion: '2026-07', priceDate: '2026-07-01' },
    gitSha: '0123456789abcdef0123456789abcdef01234567',
    links: {
      replayOf: '01J2ZK0000000000000000000A',
      forkStep: 1,
      patch: { kind: 'system-append', text: 'Be brief.' },
    },
    steps: [
      {
        index: 0,
        timing: { startedAt: at(100), durationMs: 250 },
        error: { name: 'RateLimitError', message: 'Too many requests', status: 429 },
        type: 'llm',
        provider: 'openai-chat',
        endpoint: 'chat.completions',
        request,
        response: {
          wire: {
            status: 429,
            headers: { 'retry-after': '1' },
            body: { error: { message: 'Too many requests' } },
          },
          normalized: null,
          incomplete: false,
        },
      },
      {
        index: 1,
        timing: { startedAt: at(1400), durationMs: 812.5 },
        error: null,
        type: 'llm',
        provider: 'openai-chat',
        endpoint: 'chat.completions',
        request,
        response: {
          wire: {
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: null,
            chunks: [
              { data: '{"choices":[{"delta":{"content":"Je regarde "}}]}', atMs: 120 },
              { event: 'message', id: '2', data: '{"choices":[{"delta":{"tool_calls":[]}}]}', atMs: 300.25 },
              { data: '[DONE]', atMs: 800 },
            ],
          },
          normalized: {
            model: 'gpt-4o-mini-2024-07-18',
            requestId: 'req_123',
            parts: [{ type: 'text', text: 'Je regarde la commande 📦' }],
            toolCalls: [{ type: 'tool_call', id: 'call_1', name: 'get_order', args: { id: 'A17' } }],
            finishReason: 'tool_calls',
            usage: { inputTokens: 60, outputTokens: 15, reasoningTokens: 4 },
          },
          incomplete: false,
        },
        cost: { usd: 0.00021 },
      },
      {
        index: 2,
        timing: { startedAt: at(2300), durationMs: 40 },
        error: null,
        type: 'tool',
        name: 'get_order',
        callId: 'call_1',
        args: { id: 'A17' },
        result: { id: 'A17', total: 59.9, items: [{ sku: 'MUG-1', qty: 2 }], note: null },
        sideEffects: false,
      },
      {
        index: 3,
        timing: { startedAt: at(2400), durationMs: 5 },
        error: { name: 'RefundDenied', message: 'amount 59.9 exceeds the limit' },
        type: 'tool',
        name: 'issue_refund',
        args: { id: 'A17', amount: 59.9 },
        sideEffects: true,
        blocked: false,
      },
      {
        index: 4,
        timing: { startedAt: at(2500), durationMs: 30 },
        error: { name: 'FetchError', message: 'socket hang up', code: 'ECONNRESET' },
        type: 'http',
        label: 'models.list',
        request: {
          method: 'GET',
          url: 'https://api.openai.com/v1/models',
          headers: {},
          body: null,
          bodyText: '',
        },
        response: null,
      },
    ],
    checks: [
      { name: 'refund under limit', passed: false, message: 'issue_refund called with 59.9' },
      { name: 'looked order up', passed: true },
    ],
    findings: [
      {
        kind: 'tool_error_streak',
        severity: 'warn',
        steps: [3],
        message: 'issue_refund failed',
        evidence: ['exceeds'],
      },
    ],
    diagnosis: {
      label: 'TASK_SPEC_VIOLATION',
      failingStep: 3,
      rootCause: 'the prompt does not tell the model the limit applies to the order total',
      evidence: [{ step: 3, quote: 'amount 59.9' }],
      by: 'heuristic',
      createdAt: at(10000),
    },
    fixes: [
      {
        id: 'fix-1',
        rank: 1,
        patch: { kind: 'system-append', text: 'Refund at most 49 €.' },
        rationale: 'states the limit',
        expectedEffect: 'no refund over 49',
      },
    ],
    redaction: {
      status: 'redacted',
      records: [
        { path: '/run/steps/0/request/wire/headers/authorization', rule: 'sensitive-key' },
        { path: '/steps/1/request/normalized/messages/0/parts/0/text', rule: 'email' },
        { path: '/metadata/owner', rule: 'email' },
      ],
    },
    metadata: { owner: '[REDACTED:email]', team: 'support', nested: { list: [1, 2.5, 'três'] } },
  }
}
