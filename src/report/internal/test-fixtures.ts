import { createRun } from '../../case/create-run.ts'
import type { Part, ToolCallPart } from '../../case/schema/normalized.ts'
import type { ArmStats, Run } from '../../case/schema/run.ts'
import type { LlmStep } from '../../case/schema/step.ts'
import { SECRET_CORPUS } from '../../redact/test-corpus.ts'
import type { ReportAttempt } from './fix-views.ts'

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
    // A run with an agent to re-run: the report offers replay, fork and verify for it.
    entryPoint: { kind: 'module', module: './refund-bot.ts', export: 'runRefundBot' },
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

/** Markup in a fix's rationale and in a diagnosis quote: both reports must show it as text. */
export const XSS_RATIONALE = 'The prompt never says <b>compare</b> the amount & the "total"'
export const XSS_QUOTE = 'amount 490 exceeds the order total 49 <b>denied</b>'
/** Two forks of the repaired run: `fix --try` of fix-1 (passed) and a regress trial of fix-2 (failed). */
export const FORK_A = '01M8KQ0000F0RK00000000000A'
export const FORK_B = '01M8KQ0000F0RK00000000000B'
export const GOOD_RUN = '01M8KQ0000G00DRVN0000000C1'
/** The repaired run's id: a real ULID, so that a store takes it. */
export const FIXED_RUN = '01M8KQ0000F1XED00000000000'

/**
 * The failing run, diagnosed (failing step 3, two quotes) and with two fixes: fix-1 (a system prompt
 * line) VERIFIED 9/10 against a control of 1/9, fix-2 (a tool description) REJECTED with a regression on a
 * past good run and stopped by the cost cap. `attempts` are the two stored forks, as the store lists them.
 */
export function buildFixedRun(): { run: Run; attempts: ReportAttempt[] } {
  const run = buildFailingRun()
  run.id = FIXED_RUN
  const from = run.id
  run.diagnosis = {
    label: 'BAD_TOOL_ARGUMENTS',
    failingStep: 3,
    rootCause: 'The model refunded 490, ten times the order total of 49.',
    evidence: [
      { step: 2, quote: 'issue_refund({"order_id":"A17","amount":490})' },
      { step: 3, quote: XSS_QUOTE },
    ],
    by: 'heuristic',
    createdAt: at(3000),
  }
  run.fixes = [
    {
      id: 'fix-2',
      rank: 2,
      patch: {
        kind: 'tool_description',
        tool: 'issue_refund',
        op: 'append',
        text: 'The amount is in cents.',
      },
      rationale: 'The tool does not say its unit.',
      expectedEffect: 'Amounts in the right unit.',
      verification: {
        verdict: 'REJECTED',
        reason: 'A past good run fails with the patch.',
        k: 3,
        atStep: 2,
        patched: arm(2, 3, 0),
        control: arm(1, 4, 0),
        trials: [
          {
            arm: 'patched',
            from,
            runId: null,
            outcome: 'fail',
            reason: 'refunded 490 again',
            costUsd: 0.001,
          },
          {
            arm: 'regress',
            from: GOOD_RUN,
            runId: FORK_B,
            outcome: 'fail',
            reason: 'refunded 0 on a good order <i>',
            costUsd: null,
          },
          { arm: 'regress', from: GOOD_RUN, runId: null, outcome: 'pass', costUsd: 0.002 },
        ],
        costUsd: 0.0042,
        stopped: 'max-cost',
        createdAt: at(5000),
      },
    },
    {
      id: 'fix-1',
      rank: 1,
      patch: {
        kind: 'system_prompt',
        op: 'append',
        text: 'Never refund more than the total get_order returned.',
      },
      rationale: XSS_RATIONALE,
      expectedEffect: 'Refunds at most 49 for A17.',
      verification: {
        verdict: 'VERIFIED',
        reason: 'The patched forks pass far more often than the controls.',
        k: 3,
        atStep: 2,
        patched: arm(9, 1, 0),
        control: arm(1, 8, 1),
        trials: [
          { arm: 'patched', from, runId: FORK_A, outcome: 'pass', costUsd: 0.0001 },
          { arm: 'control', from, runId: null, outcome: 'errored', reason: 'HTTP 429', costUsd: null },
        ],
        costUsd: 0.0123,
        stopped: null,
        createdAt: at(4000),
      },
    },
  ]
  const attempts: ReportAttempt[] = [
    {
      id: FORK_B,
      status: 'ok',
      outcome: 'fail',
      steps: 4,
      costUsd: null,
      tags: ['fix-2', 'regress', 'verify'],
      startedAt: at(4500),
    },
    {
      id: FORK_A,
      status: 'ok',
      outcome: 'pass',
      steps: 5,
      costUsd: 0.0001,
      tags: ['fix', `fixes:${from}`, 'fix-1'],
      startedAt: at(3500),
    },
  ]
  return { run, attempts }
}

/** Arm statistics as `verify` computes them: the Wilson 95 % interval and pass^3. */
function arm(passed: number, failed: number, errored: number): ArmStats {
  const n = passed + failed
  const p = passed / n
  const z = 1.959964
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n)
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  const triples = (a: number) => (a * (a - 1) * (a - 2)) / 6
  return {
    trials: n + errored,
    passed,
    failed,
    errored,
    passRate: p,
    lower: Math.max(0, centre - half),
    upper: Math.min(1, centre + half),
    passHatK: n >= 3 ? triples(passed) / triples(n) : null,
  }
}
