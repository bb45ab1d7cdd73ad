import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../../case/schema/json.ts'
import type { ToolDefinition } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import type { Finding, LlmStep } from '../../case/schema/step.ts'
import { buildAgentRun, type ScriptCall, type ScriptTurn } from '../internal/test-agent-run.ts'
import { createDetectors } from './create-detectors.ts'
import { detectFindings } from './detect-findings.ts'

/** Hand-built runs (OpenAI chat shaped, see test-agent-run.ts) for each detector's edges. */

const call = (id: string, name: string, args: ScriptCall['args']): ScriptTurn => ({
  llm: { calls: [{ id, name, args }] },
})
const wrapped = (name: string, args: ScriptCall['args'], result: unknown, error?: string): ScriptTurn => ({
  tool: {
    name,
    args,
    ...(result === undefined ? {} : { result: result as never }),
    ...(error ? { error: { name: 'Error', message: error } } : {}),
  },
})
const answer = (id: string, content: string, isError = false): ScriptTurn => ({
  toolResult: { id, content, isError },
})
const text = (t: string): ScriptTurn => ({ llm: { text: t } })

const ORDER_SCHEMA: JsonObject = {
  type: 'object',
  properties: { order_id: { type: 'string' } },
  required: ['order_id'],
  additionalProperties: false,
}

/** Declares `tools` in every LLM request of the run. */
function declare(run: Run, tools: ToolDefinition[]): Run {
  for (const s of run.steps) if (s.type === 'llm') s.request.normalized!.tools = tools
  return run
}

function llm(run: Run, index: number): LlmStep {
  const step = run.steps[index]
  if (step?.type !== 'llm') throw new Error(`step ${index} is not an LLM step`)
  return step
}

const summary = (findings: Finding[]) => findings.map((f) => `${f.kind}:${f.severity}@${f.steps.join(',')}`)

/** Model asks for get_order(A17) n times; the agent answers each (unwrapped) with `content`. */
function repeatedCalls(n: number, content = '{"order_id":"A17","total":49}'): Run {
  const turns: ScriptTurn[] = []
  for (let i = 0; i < n; i++)
    turns.push(call(`c${i}`, 'get_order', { order_id: 'A17' }), answer(`c${i}`, content))
  turns.push(text('done'))
  return buildAgentRun(turns)
}

describe('step_repetition', () => {
  it('one finding that escalates: warn at 3, critical at 5, and grows afterwards without being reported again', () => {
    const run = repeatedCalls(6)
    const detectors = createDetectors({})
    const raised = run.steps.map((s) => detectors.observe(s, run))
    const calls = raised.map((r) => r.filter((f) => f.message.startsWith('get_order')))
    expect(calls.map((r) => r.map((f) => f.severity))).toEqual([[], [], ['warn'], [], ['critical'], [], []])
    expect(calls[2]![0]!.steps).toEqual([0, 1, 2])
    const final = detectors.findings().filter((f) => f.message.startsWith('get_order'))
    expect(final).toEqual([
      {
        kind: 'step_repetition',
        severity: 'critical',
        steps: [0, 1, 2, 3, 4, 5],
        message: 'get_order was called 6 times with the same arguments',
        evidence: ['{"order_id":"A17"}'],
      },
    ])
    // A finding handed out earlier is a snapshot: it did not change when the slot grew.
    expect(calls[4]![0]!.steps).toEqual([0, 1, 2, 3, 4])
  })

  it('near-identical requests ignore call ids but not the newest messages', () => {
    const same = repeatedCalls(4)
    // The calls repeat (steps 0-3), and so do the requests after them (steps 1-4: the same result).
    expect(summary(detectFindings(same))).toEqual([
      'step_repetition:warn@0,1,2,3',
      'step_repetition:warn@1,2,3,4',
    ])
    const differing = buildAgentRun([
      call('c0', 'get_order', { order_id: 'A17' }),
      answer('c0', 'one'),
      call('c1', 'get_order', { order_id: 'A17' }),
      answer('c1', 'two'),
      call('c2', 'get_order', { order_id: 'A17' }),
      answer('c2', 'three'),
      text('done'),
    ])
    // The calls repeat, the requests do not (each carries another result).
    expect(summary(detectFindings(differing))).toEqual(['step_repetition:warn@0,1,2'])
  })

  it('requests with the same result for different calls are not near-identical', () => {
    const turns: ScriptTurn[] = []
    for (let i = 0; i < 5; i++)
      turns.push(call(`c${i}`, 'update_item', { id: i }), answer(`c${i}`, '{"ok":true}'))
    turns.push(text('all updated'))
    expect(detectFindings(buildAgentRun(turns))).toEqual([])
  })

  it('thresholds are configurable, and false turns it off', () => {
    const run = repeatedCalls(2)
    expect(detectFindings(run)).toEqual([])
    expect(summary(detectFindings(run, { stepRepetition: { threshold: 2, critical: 2 } }))).toEqual([
      'step_repetition:critical@0,1',
      'step_repetition:critical@1,2',
    ])
    expect(detectFindings(repeatedCalls(6), { stepRepetition: false })).toEqual([])
    expect(summary(detectFindings(repeatedCalls(4), { stepRepetition: { threshold: 4 } }))).toEqual([
      'step_repetition:warn@0,1,2,3',
      'step_repetition:warn@1,2,3,4',
    ])
  })

  it('the same tool with other arguments is not a repetition', () => {
    const turns: ScriptTurn[] = []
    for (let i = 0; i < 6; i++)
      turns.push(call(`c${i}`, 'get_order', { order_id: `A${i}` }), answer(`c${i}`, `r${i}`))
    expect(detectFindings(buildAgentRun(turns))).toEqual([])
  })

  it('wrapped tools without call ids count once per call, not once per step and once per response', () => {
    const turns: ScriptTurn[] = []
    for (let i = 0; i < 3; i++) {
      turns.push(
        call(`c${i}`, 'get_order', { order_id: 'A17' }),
        wrapped('get_order', { order_id: 'A17' }, { n: i }),
      )
    }
    const run = buildAgentRun(turns)
    expect(summary(detectFindings(run))).toEqual(['step_repetition:warn@0,2,4'])
  })
})

describe('tool_error_streak', () => {
  it('counts failures in a row across tools; a success ends the streak', () => {
    const broken = buildAgentRun([
      wrapped('get_order', { order_id: 'Z1' }, undefined, 'no order Z1'),
      wrapped('get_order', { order_id: 'Z2' }, undefined, 'no order Z2'),
      wrapped('get_order', { order_id: 'A17' }, { order_id: 'A17' }),
      wrapped('get_order', { order_id: 'Z3' }, undefined, 'no order Z3'),
      wrapped('issue_refund', { order_id: 'Z3' }, { error: 'refunds are closed' }),
    ])
    expect(detectFindings(broken)).toEqual([])
    expect(summary(detectFindings(broken, { toolErrorStreak: { threshold: 2 } }))).toEqual([
      'tool_error_streak:warn@0,1',
      'tool_error_streak:warn@3,4',
    ])
  })

  it('escalates one streak to critical, quoting its first and latest error', () => {
    const turns: ScriptTurn[] = []
    for (let i = 0; i < 6; i++)
      turns.push(call(`c${i}`, 'get_order', { order_id: `Z${i}` }), answer(`c${i}`, `boom ${i}`, true))
    turns.push(text('sorry'))
    const run = buildAgentRun(turns)
    const detectors = createDetectors({ stepRepetition: false })
    const raised = run.steps.map((s) => detectors.observe(s, run).map((f) => f.severity))
    // The results arrive with the requests at steps 1-6: the third warns, the fifth is critical.
    expect(raised).toEqual([[], [], [], ['warn'], [], ['critical'], []])
    expect(detectors.findings()).toEqual([
      {
        kind: 'tool_error_streak',
        severity: 'critical',
        steps: [1, 2, 3, 4, 5, 6],
        message: '6 tool calls failed in a row (get_order)',
        evidence: ['boom 0', 'boom 5'],
      },
    ])
  })

  it('a blocked call neither fails nor ends a streak; false turns it off', () => {
    const run = buildAgentRun([
      wrapped('get_order', {}, undefined, 'e1'),
      wrapped('get_order', {}, undefined, 'e2'),
      { tool: { name: 'issue_refund', args: {}, blocked: true } },
      wrapped('get_order', { x: 1 }, undefined, 'e3'),
    ])
    expect(summary(detectFindings(run, { stepRepetition: false }))).toEqual(['tool_error_streak:warn@0,1,3'])
    expect(detectFindings(run, { stepRepetition: false, toolErrorStreak: false })).toEqual([])
  })
})

describe('bad_tool_args', () => {
  const tools: ToolDefinition[] = [{ name: 'get_order', parameters: ORDER_SCHEMA }]

  it('validates model calls against the schema the request declared', () => {
    const run = declare(
      buildAgentRun([
        call('c0', 'get_order', { order_id: 'A17' }),
        answer('c0', 'ok'),
        call('c1', 'get_order', { orderId: 'A17' }),
        answer('c1', 'ok'),
        text('done'),
      ]),
      tools,
    )
    expect(detectFindings(run)).toEqual([
      {
        kind: 'bad_tool_args',
        severity: 'error',
        steps: [1],
        message:
          "get_order was called with arguments its schema rejects: args must have required property 'order_id'; args must NOT have additional properties",
        evidence: ['{"orderId":"A17"}'],
      },
    ])
  })

  it('arguments that are not JSON are reported with the text the model wrote', () => {
    const run = declare(buildAgentRun([call('c0', 'get_order', null), answer('c0', 'ok')]), tools)
    const part = llm(run, 0).response!.normalized!.toolCalls[0]!
    part.argsText = '{"order_id": "A17"'
    expect(detectFindings(run)).toEqual([
      {
        kind: 'bad_tool_args',
        severity: 'error',
        steps: [0],
        message: 'get_order was called with arguments that are not JSON',
        evidence: ['{"order_id": "A17"'],
      },
    ])
  })

  it('a wrapped call no response announced is checked against the newest declaration', () => {
    const run = declare(
      buildAgentRun([text('let me look'), wrapped('get_order', { order_id: 17 }, { ok: true })]),
      tools,
    )
    expect(summary(detectFindings(run))).toEqual(['bad_tool_args:error@1'])
  })

  it('reads 2020-12 and Gemini schemas; skips undeclared tools, invalid schemas, and when off', () => {
    const run = (parameters: JsonObject) =>
      declare(buildAgentRun([call('c0', 'get_order', { order_id: 17 }), answer('c0', 'ok')]), [
        { name: 'get_order', parameters },
      ])
    const draft2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...ORDER_SCHEMA }
    expect(summary(detectFindings(run(draft2020)))).toEqual(['bad_tool_args:error@0'])
    const gemini = { type: 'OBJECT', properties: { order_id: { type: 'STRING' } }, required: ['order_id'] }
    expect(summary(detectFindings(run(gemini)))).toEqual(['bad_tool_args:error@0'])
    expect(detectFindings(run({ type: 'no such type' }))).toEqual([])
    expect(detectFindings(run(ORDER_SCHEMA), { badToolArgs: false })).toEqual([])
    expect(
      detectFindings(buildAgentRun([call('c0', 'get_order', { order_id: 17 }), answer('c0', 'ok')])),
    ).toEqual([])
  })
})

describe('suspicious_tool_result', () => {
  const results = (...contents: string[]) => {
    const turns: ScriptTurn[] = []
    for (const [i, c] of contents.entries()) turns.push(call(`c${i}`, 'search', { q: i }), answer(`c${i}`, c))
    turns.push(text('done'))
    return buildAgentRun(turns)
  }

  it('plain-text error pages, marker-truncated text, blank results', () => {
    const run = results(
      '502 Bad Gateway\nThe server returned an invalid response',
      'The policy says that refunds ...',
      '  ',
    )
    expect(detectFindings(run).map((f) => [f.severity, f.steps, f.message, f.evidence])).toEqual([
      [
        'error',
        [1],
        'search returned an HTTP error page instead of data',
        ['502 Bad Gateway\nThe server returned an invalid response'],
      ],
      ['warn', [2], 'search returned a result that looks truncated', ['The policy says that refunds ...']],
      ['warn', [3], 'search returned an empty result', []],
    ])
  })

  it('a page sent back as a JSON string (an agent that JSON-encodes every result) is still a page', () => {
    const content = JSON.stringify(
      '<html><head><title>503 Service Temporarily Unavailable</title></head></html>',
    )
    const [finding] = detectFindings(results(content))
    expect(finding).toMatchObject({ severity: 'error', steps: [1], evidence: [content] })
  })

  it('a long page is quoted from its start, cut at a boundary, at most 200 characters', () => {
    const page = `<!DOCTYPE html><html><body>${'<p>Cloudflare error 1020, access denied. </p>'.repeat(20)}</body></html>`
    const [finding] = detectFindings(results(page))
    const quote = finding!.evidence[0]!
    expect(quote.length).toBeLessThanOrEqual(200)
    expect(page.startsWith(quote)).toBe(true)
    expect(quote).toMatch(/[\s,;.!?)}\]>]$/)
  })

  it('extra keys and equal shapes are not a drift; another type is, once per new shape', () => {
    const run = results('{"a":1,"b":2}', '{"a":3,"b":4,"c":5}', '["x"]', '["y"]', '{"b":1}')
    expect(detectFindings(run).map((f) => [f.steps, f.message])).toEqual([
      [[1, 3], 'search returned a result of another shape than its first one (object at step 1, now array)'],
      [
        [1, 5],
        'search returned a result of another shape than its first one (without "a", which step 1 had)',
      ],
    ])
  })

  it('a normal run, failed results and error objects are not suspicious', () => {
    const run = buildAgentRun([
      call('c0', 'search', { q: 1 }),
      answer('c0', '', true),
      call('c1', 'search', { q: 2 }),
      answer('c1', '{"hits":[1]}'),
      call('c2', 'search', { q: 3 }),
      answer('c2', '{"error":"rate limited"}'),
      call('c3', 'search', { q: 4 }),
      answer('c3', '{"hits":[]}'),
      text('done'),
    ])
    expect(detectFindings(run)).toEqual([])
    expect(detectFindings(results('<html></html>'), { suspiciousToolResult: false })).toEqual([])
  })
})

describe('budget', () => {
  const run = () => {
    const r = buildAgentRun([
      call('c0', 'get_order', { order_id: 'A17' }),
      wrapped('get_order', { order_id: 'A17' }, { ok: true }),
      call('c1', 'issue_refund', { order_id: 'A17', amount: 49 }),
      wrapped('issue_refund', { order_id: 'A17', amount: 49 }, { ok: true }),
      text('done'),
    ])
    for (const s of r.steps) if (s.type === 'llm') s.cost = { usd: 0.01 }
    return r
  }

  it('warns at warnAt × the limit and escalates to error over it, one finding per budget', () => {
    const findings = detectFindings(run(), { maxCostUsd: 0.025, maxToolCalls: 2 })
    expect(findings.map((f) => [f.severity, f.steps, f.message])).toEqual([
      ['error', [2, 4], 'budget: cost $0.0300, over the limit of $0.0250'],
      ['warn', [2], 'budget: tool calls 2, 80% or more of the limit of 2'],
    ])
    // At exactly the limit it only warns; with warnAt 0.5 it warns earlier.
    expect(summary(detectFindings(run(), { maxSteps: 5 }))).toEqual(['budget:warn@3'])
    expect(summary(detectFindings(run(), { maxSteps: 5, warnAt: 0.5 }))).toEqual(['budget:warn@2'])
    expect(summary(detectFindings(run(), { maxSteps: 5, warnAt: 1 }))).toEqual(['budget:warn@4'])
    expect(summary(detectFindings(run(), { maxLlmCalls: 1 }))).toEqual(['budget:error@0,2'])
  })

  it('tokens from each response, seconds from run start to the end of the latest step', () => {
    // Each LLM step reports 10 + 5 tokens; steps end 150, 250, ..., 550 ms after the run started.
    expect(summary(detectFindings(run(), { maxTokens: 40 }))).toEqual(['budget:error@4'])
    expect(summary(detectFindings(run(), { maxTokens: 45 }))).toEqual(['budget:warn@4'])
    expect(detectFindings(run(), { maxSeconds: 0.5 }).map((f) => [f.severity, f.steps, f.message])).toEqual([
      ['error', [3, 4], 'budget: time 0.55 s, over the limit of 0.50 s'],
    ])
  })

  it('no limit, no finding; a run under 80% of every limit raises none', () => {
    expect(detectFindings(run())).toEqual([])
    expect(
      detectFindings(run(), {
        maxSteps: 10,
        maxLlmCalls: 10,
        maxTokens: 1000,
        maxCostUsd: 1,
        maxSeconds: 60,
      }),
    ).toEqual([])
  })
})

describe('length_cutoff', () => {
  it('warns for a cut text, errs for cut tool calls, names the max tokens', () => {
    const r = buildAgentRun([
      text('Your refund of $49 for order A17 will'),
      call('c0', 'get_order', { order_id: 'A1' }),
    ])
    for (const s of r.steps) if (s.type === 'llm') s.response!.normalized!.finishReason = 'length'
    llm(r, 1).request.normalized!.params.maxTokens = 16
    expect(detectFindings(r, { badToolArgs: false })).toEqual([
      {
        kind: 'length_cutoff',
        severity: 'warn',
        steps: [0],
        message: 'the response was cut by the token limit',
        evidence: ['length', 'Your refund of $49 for order A17 will'],
      },
      {
        kind: 'length_cutoff',
        severity: 'error',
        steps: [1],
        message: 'the response was cut by the token limit (maxTokens 16) while it was asking for tool calls',
        evidence: ['length'],
      },
    ])
    expect(detectFindings(r, { lengthCutoff: false })).toEqual([])
  })

  it('a response that stopped on its own is not cut', () => {
    expect(detectFindings(buildAgentRun([text('All done.')]))).toEqual([])
  })
})
