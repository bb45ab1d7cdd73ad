import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { describe, expect, it } from 'vitest'
import { runRefundBot, TOOLS } from '../../../examples/refund-bot/agent.ts'
import { refundModel } from '../../../examples/refund-bot/scripted-model.ts'
import { createShop, type Shop } from '../../../examples/refund-bot/shop.ts'
import { useScriptedProvider } from '../../../test/helpers/scripted-harness.ts'
import type { Run } from '../../case/schema/run.ts'
import type { Finding, Step } from '../../case/schema/step.ts'
import { wrap } from '../../engine/wrap.ts'
import { record } from '../../production-capture/record.ts'
import { startScriptedProvider } from '../../testing/start-scripted-provider.ts'
import type { ScriptedTurn } from '../../testing/types.ts'
import { createDetectors } from './create-detectors.ts'
import { detectFindings } from './detect-findings.ts'
import type { ChecksOptions } from './options.ts'

/**
 * One scenario per detector, end to end: the refund bot of examples/refund-bot (a plain OpenAI chat tool
 * loop with wrapped tools) talks to the scripted provider over loopback through the real OpenAI SDK, the
 * run is captured with `record`, and the detectors read the Run. Each scenario also feeds the steps live,
 * through the Session's `onStep` hook, to check that the incremental form sees the same findings, at the
 * step where they happen.
 */

const INPUT = 'Refund my order A17, it arrived broken'
const server = useScriptedProvider()

interface Scenario {
  run: Run
  /** What `observe` returned at each step, live, while the run was recorded. */
  live: Map<number, Finding[]>
  liveFindings: Finding[]
}

function liveDetectors(checks: ChecksOptions) {
  const detectors = createDetectors(checks)
  const live = new Map<number, Finding[]>()
  const onStep = (step: Step, session: { run: Run }) => {
    const raised = detectors.observe(step, session.run)
    if (raised.length > 0) live.set(step.index, raised)
  }
  return { detectors, live, onStep }
}

/** Runs the refund bot against `turns` (or the refund model's policy) and records the run. */
async function refundRun(
  turns: ScriptedTurn[] | 'policy',
  options: { shop?: Shop; checks?: ChecksOptions; maxRetries?: number } = {},
): Promise<Scenario> {
  const checks = options.checks ?? {}
  const { detectors, live, onStep } = liveDetectors(checks)
  const own = turns === 'policy' ? await startScriptedProvider({ policy: refundModel() }) : undefined
  try {
    if (turns !== 'policy') server.script(...turns)
    const url = own?.url ?? server.url
    const client = wrap(
      new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-test', maxRetries: options.maxRetries ?? 0 }),
    )
    const shop = options.shop ?? createShop()
    const { run } = await record('refund', (input: string) => runRefundBot(input, { client, shop }), {
      agent: 'refund-bot',
      input: INPUT,
      hooks: { onStep },
    })
    return { run, live, liveFindings: detectors.findings() }
  } finally {
    await own?.close()
  }
}

const getOrder = (order_id: string): ScriptedTurn => ({
  toolCalls: [{ name: 'get_order', args: { order_id } }],
})
const ORDER_A17 = '{"order_id":"A17","total":49,"status":"delivered","delivered_days_ago":3}'

function kinds(findings: Finding[]): string[] {
  return findings.map((f) => `${f.kind}:${f.severity}`)
}

/**
 * Every evidence quote is verbatim: found in the JSON of one of the steps the finding names, as data (a
 * wrapped tool's object result) or inside a string (arguments, a tool result's text, an error message).
 */
function expectVerbatim(run: Run, findings: Finding[]): void {
  for (const f of findings) {
    const texts = f.steps.map((i) => JSON.stringify(run.steps[i]))
    for (const quote of f.evidence) {
      const escaped = JSON.stringify(quote).slice(1, -1)
      expect(
        texts.some((t) => t.includes(escaped) || t.includes(quote)),
        `${f.kind}: "${quote}" in steps ${f.steps}`,
      ).toBe(true)
      expect(quote.length).toBeLessThanOrEqual(200)
    }
  }
}

describe('runtime detectors on scripted refund-bot runs', () => {
  it('the clean refund run raises no finding', async () => {
    const { run, liveFindings, live } = await refundRun('policy')
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'tool', 'llm', 'tool', 'llm'])
    expect(run.output).toContain('is on its way')
    expect(detectFindings(run)).toEqual([])
    expect(liveFindings).toEqual([])
    expect(live.size).toBe(0)
  })

  it('step_repetition: the same get_order five times warns at the third and is critical at the fifth', async () => {
    const turns = [
      ...Array.from({ length: 5 }, () => getOrder('A17')),
      { text: 'Your order A17 is delivered.' },
    ]
    const { run, live, liveFindings } = await refundRun(turns)
    const findings = detectFindings(run)
    expect(kinds(findings)).toEqual(['step_repetition:critical', 'step_repetition:critical'])
    const [calls, requests] = findings as [Finding, Finding]
    // The model asked at LLM steps 0, 2, 4, 6, 8; each wrapped get_order step answers one of them.
    expect(calls.steps).toEqual([0, 2, 4, 6, 8])
    expect(calls.evidence).toEqual(['{"order_id":"A17"}'])
    expect(calls.message).toBe('get_order was called 5 times with the same arguments')
    // Requests 2..10 all end with the same tool result after the model's call.
    expect(requests.steps).toEqual([2, 4, 6, 8, 10])
    expect(requests.evidence).toEqual([ORDER_A17])
    expectVerbatim(run, findings)

    // Live: warn at the third call, critical at the fifth, once each; the final list is the same.
    expect(kinds(live.get(4)!)).toEqual(['step_repetition:warn'])
    expect(live.get(4)![0]!.steps).toEqual([0, 2, 4])
    expect(kinds(live.get(6)!)).toEqual(['step_repetition:warn'])
    expect(kinds(live.get(8)!)).toEqual(['step_repetition:critical'])
    expect(live.get(8)![0]!.steps).toEqual([0, 2, 4, 6, 8])
    expect(kinds(live.get(10)!)).toEqual(['step_repetition:critical'])
    expect([...live.keys()]).toEqual([4, 6, 8, 10])
    expect(liveFindings).toEqual(findings)
  })

  it('step_repetition: a provider answering 502 pages is retried into three identical requests', async () => {
    const page: ScriptedTurn = { fault: { type: 'server_error', status: 502 } }
    const { run } = await refundRun([page, page, page], { maxRetries: 2 })
    expect(run.status).toBe('error')
    expect(run.steps.map((s) => s.error?.status)).toEqual([502, 502, 502])
    const findings = detectFindings(run)
    expect(kinds(findings)).toEqual(['step_repetition:warn'])
    expect(findings[0]!.steps).toEqual([0, 1, 2])
    expect(findings[0]!.evidence).toEqual([INPUT])
    expectVerbatim(run, findings)
  })

  it('tool_error_streak: three unknown orders in a row (wrapped tools that threw)', async () => {
    const { run, live } = await refundRun([
      getOrder('Z99'),
      getOrder('Z98'),
      getOrder('Z97'),
      { text: 'I could not find these orders.' },
    ])
    const findings = detectFindings(run)
    expect(kinds(findings)).toEqual(['tool_error_streak:warn'])
    expect(findings[0]).toMatchObject({
      steps: [1, 3, 5],
      message: '3 tool calls failed in a row (get_order)',
      evidence: ['no order Z99', 'no order Z97'],
    })
    expect(run.steps.filter((s) => s.type === 'tool').map((s) => s.error?.message)).toEqual([
      'no order Z99',
      'no order Z98',
      'no order Z97',
    ])
    expect(kinds(live.get(5)!)).toEqual(['tool_error_streak:warn'])
    expectVerbatim(run, findings)
  })

  it('tool_error_streak: an unwrapped agent, seen only in the results it sends back', async () => {
    server.script(getOrder('Z99'), getOrder('Z98'), getOrder('Z97'), getOrder('Z96'), getOrder('Z95'), {
      text: 'No such orders.',
    })
    const client = wrap(new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-test', maxRetries: 0 }))
    const { run } = await record('plain', (input: string) => plainAgent(client, input), { input: INPUT })
    expect(run.steps.every((s) => s.type === 'llm')).toBe(true)
    const findings = detectFindings(run)
    expect(kinds(findings)).toEqual(['tool_error_streak:critical'])
    // The results travel in the requests that follow each call.
    expect(findings[0]!.steps).toEqual([1, 2, 3, 4, 5])
    expect(findings[0]!.evidence).toEqual(['{"error":"no order Z99"}', '{"error":"no order Z95"}'])
    expectVerbatim(run, findings)
  })

  it('bad_tool_args: an amount sent as a string fails the schema the request declared', async () => {
    const { run, live } = await refundRun([
      getOrder('A17'),
      { toolCalls: [{ name: 'issue_refund', args: { order_id: 'A17', amount: '49' } }] },
      { text: 'Refunded.' },
    ])
    const findings = detectFindings(run)
    expect(kinds(findings)).toEqual(['bad_tool_args:error'])
    expect(findings[0]!.steps).toEqual([2])
    expect(findings[0]!.evidence).toEqual(['{"order_id":"A17","amount":"49"}'])
    expect(findings[0]!.message).toBe(
      'issue_refund was called with arguments its schema rejects: args/amount must be number',
    )
    expect(live.get(2)).toEqual(findings)
    expectVerbatim(run, findings)
  })

  it('suspicious_tool_result: an HTML page, a drifted shape, an empty and a truncated result', async () => {
    const page = '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>'
    const results: Record<string, unknown> = {
      A17: page,
      B42: { order_id: 'B42', total: 120, status: 'delivered', delivered_days_ago: 45 },
      C08: { order_id: 'C08', status: 'shipped' },
      D01: {},
      E05: '{"order_id":"E05","total":1',
    }
    const shop = { ...createShop(), getOrder: (args: { order_id: string }) => results[args.order_id] }
    const { run } = await refundRun([...Object.keys(results).map(getOrder), { text: 'Done.' }], {
      shop: shop as unknown as Shop,
    })
    const findings = detectFindings(run)
    expect(kinds(findings)).toEqual([
      'suspicious_tool_result:error',
      'suspicious_tool_result:warn',
      'suspicious_tool_result:warn',
      'suspicious_tool_result:warn',
    ])
    const [html, drift, empty, cut] = findings as [Finding, Finding, Finding, Finding]
    expect(html).toMatchObject({ steps: [1], message: 'get_order returned an HTML page instead of data' })
    expect(html.evidence).toEqual([page])
    expect(drift.steps).toEqual([3, 5])
    expect(drift.message).toContain('without "total", "delivered_days_ago", which step 3 had')
    expect(empty).toMatchObject({
      steps: [7],
      message: 'get_order returned an empty result',
      evidence: ['{}'],
    })
    expect(cut).toMatchObject({ steps: [9], evidence: ['{"order_id":"E05","total":1'] })
    expectVerbatim(run, findings)
  })

  it('budget: steps, LLM calls, tool calls and tokens against their limits', async () => {
    const clean = await refundRun('policy')
    let tokens = 0
    for (const s of clean.run.steps) {
      const usage = s.type === 'llm' ? s.response?.normalized?.usage : undefined
      if (usage) tokens += usage.inputTokens + usage.outputTokens
    }
    expect(tokens).toBeGreaterThan(10)
    const checks: ChecksOptions = { maxSteps: 4, maxLlmCalls: 3, maxToolCalls: 2, maxTokens: tokens - 1 }
    const { run, live } = await refundRun('policy', { checks })
    const findings = detectFindings(run, checks)
    expect(findings.every((f) => f.kind === 'budget' && f.evidence.length === 0)).toBe(true)
    const byMetric = (label: string) => findings.filter((f) => f.message.startsWith(`budget: ${label} `))
    // Two tool calls (get_order, issue_refund), each counted once at the LLM step that asked for it.
    expect(byMetric('tool calls')).toEqual([
      {
        kind: 'budget',
        severity: 'warn',
        steps: [2],
        message: 'budget: tool calls 2, 80% or more of the limit of 2',
        evidence: [],
      },
    ])
    expect(byMetric('steps').map((f) => [f.severity, f.steps, f.message])).toEqual([
      ['error', [3, 4], 'budget: steps 5, over the limit of 4'],
    ])
    expect(byMetric('LLM calls').map((f) => [f.severity, f.steps])).toEqual([['warn', [4]]])
    const [tokenFinding] = byMetric('tokens')
    expect(tokenFinding?.severity).toBe('error')
    expect(tokenFinding?.steps.at(-1)).toBe(4)
    expect(tokenFinding?.message).toBe(`budget: tokens ${tokens}, over the limit of ${tokens - 1}`)
    expect(findings).toHaveLength(4)
    // Live, the steps budget warned at step 3 and escalated to error at step 4.
    expect(live.get(3)!.map((f) => [f.severity, f.message])).toEqual([
      ['warn', 'budget: steps 4, 80% or more of the limit of 4'],
    ])
    expect(live.get(4)!.map((f) => f.message.split(',')[0])).toEqual([
      'budget: steps 5',
      'budget: LLM calls 3',
      `budget: tokens ${tokens}`,
    ])
  })

  it('length_cutoff: a reply cut by the token limit', async () => {
    const cut = 'The order arrived damaged, so I am going to'
    const { run } = await refundRun([getOrder('A17'), { text: cut, finishReason: 'length' }])
    expect(run.output).toBe(cut)
    const findings = detectFindings(run)
    expect(findings).toEqual([
      {
        kind: 'length_cutoff',
        severity: 'warn',
        steps: [2],
        message: 'the response was cut by the token limit',
        evidence: ['length', cut],
      },
    ])
    expectVerbatim(run, findings)
  })
})

/** An agent with no crashlab in its tools: its tool calls are seen only on the model's side. */
async function plainAgent(client: OpenAI, input: string): Promise<string> {
  const shop = createShop()
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: input }]
  for (let i = 0; i < 8; i++) {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS })
    const message = completion.choices[0]!.message
    messages.push(message)
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      let content: string
      try {
        content = JSON.stringify(shop.getOrder(JSON.parse(call.function.arguments)))
      } catch (err) {
        content = JSON.stringify({ error: (err as Error).message })
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
  }
  return ''
}
