import { readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../../case/schema/json.ts'
import { type Run, RunSchema } from '../../case/schema/run.ts'
import { type Finding, FindingSchema, type Step } from '../../case/schema/step.ts'
import { buildAgentRun, type ScriptTurn } from '../internal/test-agent-run.ts'
import { createDetectors } from './create-detectors.ts'
import { detectFindings } from './detect-findings.ts'
import type { ChecksOptions } from './options.ts'

/**
 * The contract every runtime detector keeps, one table row per detector: the option that turns it on,
 * a run that triggers it and the finding that run must give. Every row runs the same properties: a
 * clean, an empty and an errored run raise nothing, the trigger raises exactly its finding (kind,
 * severity, steps, verbatim evidence), findings are deterministic and plain JSON, the live form
 * (`createDetectors().observe`) sees what the full pass sees, at the step where it happens, without
 * reading other steps, and turning the detector off silences it. The table is checked against the
 * detector files and docs/checks.md, so a detector added without a row fails here.
 */

/** Every detector off, no budget: a row adds its own option to this. */
const ALL_OFF: ChecksOptions = {
  stepRepetition: false,
  toolErrorStreak: false,
  badToolArgs: false,
  suspiciousToolResult: false,
  lengthCutoff: false,
}

/** Every detector on, budgets far above what a clean run uses. */
const ALL_ON: ChecksOptions = {
  maxSteps: 100,
  maxLlmCalls: 100,
  maxToolCalls: 100,
  maxTokens: 100_000,
  maxCostUsd: 10,
  maxSeconds: 3600,
}

const GATEWAY_PAGE = '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>'

interface DetectorRow {
  /** The file under internal/ that implements it. */
  file: string
  /** What turns it on (with everything else off). */
  on: ChecksOptions
  /** What turns it off (with everything else on). */
  off: ChecksOptions
  /** Options for the generated runs, when `on` would seldom fire on runs that short. */
  generated?: ChecksOptions
  /** A run that must raise exactly `expected`. */
  trigger: () => Run
  expected: Omit<Finding, 'message'>
}

const getOrder = (id: string, order_id: string): ScriptTurn => ({
  llm: { calls: [{ id, name: 'get_order', args: { order_id } }] },
})

/** A refund run with nothing wrong in it: five steps, two wrapped tool calls that succeed. */
function cleanRun(): Run {
  return buildAgentRun([
    getOrder('c1', 'A17'),
    {
      tool: {
        name: 'get_order',
        args: { order_id: 'A17' },
        callId: 'c1',
        result: { order_id: 'A17', total: 49, status: 'delivered' },
      },
    },
    { llm: { calls: [{ id: 'c2', name: 'issue_refund', args: { order_id: 'A17', amount: 49 } }] } },
    {
      tool: {
        name: 'issue_refund',
        args: { order_id: 'A17', amount: 49 },
        callId: 'c2',
        result: { ok: true, refund_id: 'R1' },
      },
    },
    { llm: { text: 'I have refunded $49 for order A17.' } },
  ])
}

/** The first LLM step of a one-turn run, to change its response by hand. */
function firstLlm(run: Run) {
  const step = run.steps[0]
  if (step?.type !== 'llm' || !step.response?.normalized) throw new Error('the run has no first LLM step')
  return step.response.normalized
}

const DETECTORS: Record<string, DetectorRow> = {
  step_repetition: {
    file: 'step-repetition.ts',
    on: { ...ALL_OFF, stepRepetition: true },
    off: { ...ALL_ON, stepRepetition: false },
    generated: { ...ALL_OFF, stepRepetition: { threshold: 2, critical: 3 } },
    trigger: () =>
      buildAgentRun(
        ['c1', 'c2', 'c3'].flatMap((id): ScriptTurn[] => [
          getOrder(id, 'A17'),
          { tool: { name: 'get_order', args: { order_id: 'A17' }, callId: id, result: { total: 49 } } },
        ]),
      ),
    expected: {
      kind: 'step_repetition',
      severity: 'warn',
      steps: [0, 2, 4],
      evidence: ['{"order_id":"A17"}'],
    },
  },
  tool_error_streak: {
    file: 'tool-error-streak.ts',
    on: { ...ALL_OFF, toolErrorStreak: true },
    off: { ...ALL_ON, toolErrorStreak: false },
    trigger: () =>
      buildAgentRun(
        ['Z91', 'Z92', 'Z93'].flatMap((order, i): ScriptTurn[] => [
          getOrder(`c${i}`, order),
          {
            tool: {
              name: 'get_order',
              args: { order_id: order },
              callId: `c${i}`,
              error: { name: 'Error', message: `no order ${order}` },
            },
          },
        ]),
      ),
    expected: {
      kind: 'tool_error_streak',
      severity: 'warn',
      steps: [1, 3, 5],
      evidence: ['no order Z91', 'no order Z93'],
    },
  },
  bad_tool_args: {
    file: 'bad-tool-args.ts',
    on: { ...ALL_OFF, badToolArgs: true },
    off: { ...ALL_ON, badToolArgs: false },
    trigger: () => {
      const run = buildAgentRun([getOrder('c1', 'A17')])
      firstLlm(run).toolCalls[0] = {
        type: 'tool_call',
        id: 'c1',
        name: 'get_order',
        args: null,
        argsText: '{"order_id": A17',
      }
      return run
    },
    expected: { kind: 'bad_tool_args', severity: 'error', steps: [0], evidence: ['{"order_id": A17'] },
  },
  suspicious_tool_result: {
    file: 'suspicious-tool-result.ts',
    on: { ...ALL_OFF, suspiciousToolResult: true },
    off: { ...ALL_ON, suspiciousToolResult: false },
    trigger: () =>
      buildAgentRun([
        getOrder('c1', 'A17'),
        { tool: { name: 'get_order', args: { order_id: 'A17' }, callId: 'c1', result: GATEWAY_PAGE } },
      ]),
    expected: { kind: 'suspicious_tool_result', severity: 'error', steps: [1], evidence: [GATEWAY_PAGE] },
  },
  budget: {
    file: 'budget.ts',
    // A clean run (5 steps, 9 with the errored ones) stays under the warning at 16 steps.
    on: { ...ALL_OFF, maxSteps: 20 },
    // Every other detector is on by default; with no limit there is no budget.
    off: {},
    generated: { ...ALL_OFF, maxSteps: 8, maxLlmCalls: 4, maxToolCalls: 3, maxTokens: 60, maxSeconds: 1 },
    trigger: () =>
      buildAgentRun(Array.from({ length: 21 }, (_, i): ScriptTurn => ({ llm: { text: `step ${i}` } }))),
    expected: { kind: 'budget', severity: 'error', steps: [15, 20], evidence: [] },
  },
  length_cutoff: {
    file: 'length-cutoff.ts',
    on: { ...ALL_OFF, lengthCutoff: true },
    off: { ...ALL_ON, lengthCutoff: false },
    trigger: () => {
      const run = buildAgentRun([{ llm: { text: 'The refund policy says that' } }])
      firstLlm(run).finishReason = 'length'
      return run
    },
    expected: {
      kind: 'length_cutoff',
      severity: 'warn',
      steps: [0],
      evidence: ['length', 'The refund policy says that'],
    },
  },
}

/**
 * Steps that failed, as a recording stores them: a model call answered 500 (no normalized response), a
 * model call that never got an answer, a gateway page on another call, and a tool that threw once.
 */
function erroredSteps(from: number, withTool: boolean): Step[] {
  const at = (i: number) => ({
    startedAt: new Date(Date.parse('2026-11-01T09:05:00.000Z') + i).toISOString(),
    durationMs: 5,
  })
  const wire = { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: null }
  const steps: Step[] = [
    {
      index: from,
      type: 'llm',
      provider: 'openai-chat',
      endpoint: 'chat.completions',
      timing: at(0),
      error: { name: 'InternalServerError', message: '500 The server had an error', status: 500 },
      request: { wire, normalized: null, requestHash: `sha256:${'e'.repeat(64)}` },
      response: {
        wire: { status: 500, headers: {}, body: { error: { message: 'The server had an error' } } },
        normalized: null,
        incomplete: false,
      },
    },
    {
      index: from + 1,
      type: 'llm',
      provider: 'openai-chat',
      endpoint: 'chat.completions',
      timing: at(1),
      error: { name: 'TypeError', message: 'fetch failed', code: 'ECONNRESET' },
      request: { wire, normalized: null, requestHash: `sha256:${'f'.repeat(64)}` },
      response: null,
    },
    {
      index: from + 2,
      type: 'http',
      label: 'traces.ingest',
      timing: at(2),
      error: null,
      request: { method: 'POST', url: 'https://api.openai.com/v1/traces/ingest', headers: {}, body: null },
      response: { status: 502, headers: {}, body: null, bodyText: GATEWAY_PAGE },
    },
  ]
  if (withTool)
    steps.push({
      index: from + 3,
      type: 'tool',
      name: 'send_email',
      args: { to: 'ana@example.com' },
      sideEffects: true,
      timing: at(3),
      error: { name: 'Error', message: 'SMTP connection refused' },
    })
  return steps
}

function withSteps(run: Run, steps: Step[]): Run {
  return { ...run, steps: [...run.steps, ...steps] }
}

/** Every text a step holds: its strings, and the compact JSON of each value in it. */
function textsOf(step: Step): string[] {
  const out: string[] = []
  const walk = (value: unknown) => {
    if (typeof value === 'string') out.push(value)
    else if (value !== null && typeof value === 'object') {
      out.push(JSON.stringify(value))
      for (const v of Object.values(value)) walk(v)
    } else if (value !== undefined) out.push(String(value))
  }
  walk(step)
  return out
}

/** The properties every finding of every detector keeps, whatever run gave it. */
function expectWellFormed(findings: Finding[], run: Run): void {
  for (const f of findings) {
    expect(FindingSchema.safeParse(f).success).toBe(true)
    expect(f.message.length).toBeGreaterThan(0)
    // Steps exist, in order, each once.
    expect(f.steps.length).toBeGreaterThan(0)
    expect(f.steps).toStrictEqual([...new Set(f.steps)].sort((a, b) => a - b))
    for (const i of f.steps) expect(i).toBeLessThan(run.steps.length)
    // Evidence is quoted, not made: an exact part of a text one of its steps holds, at most 200 characters.
    const texts = f.steps.flatMap((i) => textsOf(run.steps[i]!))
    for (const quote of f.evidence) {
      expect(quote.length).toBeLessThanOrEqual(200)
      expect(
        texts.some((t) => t.includes(quote)),
        `evidence ${JSON.stringify(quote)} of ${f.kind}`,
      ).toBe(true)
    }
  }
  expect(JSON.parse(JSON.stringify(findings))).toStrictEqual(findings)
}

/** Feeds the steps one by one, as a recording does, with a run that holds none of them yet. */
function observeLive(run: Run, options: ChecksOptions) {
  const detectors = createDetectors(options)
  const raised: Array<{ step: number; findings: Finding[]; json: string }> = []
  for (const step of run.steps) {
    const findings = detectors.observe(step, { ...run, steps: [] })
    raised.push({ step: step.index, findings, json: JSON.stringify(findings) })
  }
  return { raised, findings: detectors.findings() }
}

// ---------------------------------------------------------------------------------------------

const DIR = new URL('./', import.meta.url)

/** The kinds the suite below was declared for, filled while the file is collected. */
const covered: string[] = []

describe('the detector table', () => {
  it('has a row for every detector implemented under internal/, and for nothing else', () => {
    const files = readdirSync(new URL('./internal/', DIR))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .filter((f) => /\): Detector \{/.test(readFileSync(new URL(`./internal/${f}`, DIR), 'utf8')))
    expect(files.sort()).toStrictEqual(
      Object.values(DETECTORS)
        .map((d) => d.file)
        .sort(),
    )
  })

  it('has a row for every detector createDetectors registers', () => {
    const registered = readFileSync(new URL('./create-detectors.ts', DIR), 'utf8').match(/detectors\.push\(/g)
    expect(registered?.length).toBe(Object.keys(DETECTORS).length)
  })

  it('names the kinds docs/checks.md documents', () => {
    const docs = readFileSync(new URL('../../../docs/checks.md', DIR), 'utf8')
    // The headings of the detectors' own section: other sections (the circuit breaker) are not detectors.
    const from = docs.indexOf('\n## The detectors\n')
    const section = docs.slice(from, docs.indexOf('\n## ', from + 1))
    const documented = [...section.matchAll(/^### `([a-z_]+)`/gm)].map((m) => m[1])
    expect(documented.sort()).toStrictEqual(Object.keys(DETECTORS).sort())
  })

  it('is the list the contract below is declared over', () => {
    expect(covered).toStrictEqual(Object.keys(DETECTORS))
  })

  it('starts from runs that are valid and clean with every detector on', () => {
    for (const run of [cleanRun(), withSteps(cleanRun(), erroredSteps(5, true))]) {
      expect(RunSchema.safeParse(run).success).toBe(true)
      expect(detectFindings(run, ALL_ON)).toStrictEqual([])
    }
    for (const row of Object.values(DETECTORS)) expect(RunSchema.safeParse(row.trigger()).success).toBe(true)
  })
})

describe.each(Object.entries(DETECTORS))('detector contract: %s', (kind, row) => {
  covered.push(kind)

  it('raises nothing on a clean run, an empty run, or a clean run with errored steps', () => {
    const clean = cleanRun()
    const empty = { ...clean, steps: [] }
    expect(detectFindings(clean, row.on)).toStrictEqual([])
    expect(detectFindings(empty, row.on)).toStrictEqual([])
    expect(createDetectors(row.on).findings()).toStrictEqual([])
    expect(detectFindings(withSteps(clean, erroredSteps(5, true)), row.on)).toStrictEqual([])
  })

  it('raises exactly its finding on its trigger: kind, severity, steps, evidence', () => {
    const run = row.trigger()
    const findings = detectFindings(run, row.on)
    expect(findings.map(({ message: _, ...f }) => f)).toStrictEqual([row.expected])
    expectWellFormed(findings, run)
  })

  it('still raises it when errored steps follow', () => {
    const run = row.trigger()
    const findings = detectFindings(withSteps(run, erroredSteps(run.steps.length, false)), row.on)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({ kind: row.expected.kind, severity: row.expected.severity })
    expect(findings[0]!.steps.slice(0, row.expected.steps.length)).toStrictEqual(row.expected.steps)
  })

  it('gives the same findings each time, for a copy, and for the run read back from JSON', () => {
    const run = row.trigger()
    const first = detectFindings(run, row.on)
    expect(detectFindings(run, row.on)).toStrictEqual(first)
    expect(detectFindings(structuredClone(run), row.on)).toStrictEqual(first)
    expect(detectFindings(JSON.parse(JSON.stringify(run)), row.on)).toStrictEqual(first)
  })

  it('sees live what the full pass sees, at the step where it happens, from that step alone', () => {
    const run = row.trigger()
    const { raised, findings } = observeLive(run, row.on)
    expect(findings).toStrictEqual(detectFindings(run, row.on))
    const at = raised.find((r) => r.step === row.expected.steps.at(-1))
    expect(at?.findings.map((f) => [f.kind, f.severity])).toStrictEqual([
      [row.expected.kind, row.expected.severity],
    ])
    // Nothing before its first step.
    for (const r of raised.filter((r) => r.step < row.expected.steps[0]!))
      expect(r.findings).toStrictEqual([])
    // Handed-out findings are copies: what a step returned does not change as the run goes on.
    for (const r of raised) expect(JSON.stringify(r.findings)).toBe(r.json)
  })

  it('is silenced by its option, with every other detector on', () => {
    const kinds = detectFindings(row.trigger(), row.off).map((f) => f.kind)
    expect(kinds).not.toContain(row.expected.kind)
    expect(detectFindings(row.trigger(), { ...row.off, ...row.on }).map((f) => f.kind)).toContain(
      row.expected.kind,
    )
  })

  it('keeps the finding properties on generated runs, live and full', () => {
    fc.assert(
      fc.property(runs, (run) => {
        const options = row.generated ?? row.on
        const findings = detectFindings(run, options)
        expectWellFormed(findings, run)
        expect(findings.every((f) => f.kind === row.expected.kind)).toBe(true)
        expect(observeLive(run, options).findings).toStrictEqual(findings)
        expect(detectFindings(structuredClone(run), options)).toStrictEqual(findings)
      }),
      { numRuns: 150 },
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Generated runs: tool loops whose calls repeat, fail, return pages, empty or cut results

const toolName = fc.constantFrom('get_order', 'issue_refund', 'search_docs')
const args: fc.Arbitrary<JsonValue> = fc.constantFrom<JsonValue>(
  { order_id: 'A17' },
  { order_id: 'Z99' },
  { amount: 49, order_id: 'A17' },
  { order_id: 'A17', amount: 49 },
  {},
)
const result: fc.Arbitrary<JsonValue> = fc.constantFrom<JsonValue>(
  { order_id: 'A17', total: 49, status: 'delivered' },
  { total: 49 },
  { error: 'no order Z99' },
  { isError: true, content: [{ type: 'text', text: 'not found' }] },
  GATEWAY_PAGE,
  '',
  '{"order_id":"A1',
  'The order was shipped...',
  [],
  { ok: true, error: null },
)

const turn: fc.Arbitrary<ScriptTurn> = fc.oneof(
  fc.record({ name: toolName, args, n: fc.nat(3) }).map(({ name, args, n }) => ({
    llm: { calls: [{ id: `call_${n}`, name, args }] },
  })),
  fc.constantFrom('Done.', 'Let me check.').map((text) => ({ llm: { text } })),
  fc.record({ name: toolName, args, n: fc.nat(3), result, threw: fc.boolean() }).map(
    ({ name, args, n, result, threw }): ScriptTurn => ({
      tool: threw
        ? { name, args, callId: `call_${n}`, error: { name: 'Error', message: 'no order Z99' } }
        : { name, args, callId: `call_${n}`, result },
    }),
  ),
  fc
    .record({
      n: fc.nat(3),
      content: result.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))),
      isError: fc.boolean(),
    })
    .map(({ n, content, isError }): ScriptTurn => ({ toolResult: { id: `call_${n}`, content, isError } })),
)

/** A run of up to 14 turns, some LLM responses cut by the token limit, some arguments not JSON. */
const runs: fc.Arbitrary<Run> = fc
  .record({
    turns: fc.array(turn, { maxLength: 14 }),
    cut: fc.array(fc.boolean(), { maxLength: 14 }),
    broken: fc.array(fc.boolean(), { maxLength: 14 }),
    errored: fc.boolean(),
  })
  .map(({ turns, cut, broken, errored }) => {
    const run = buildAgentRun(turns)
    run.steps.forEach((step, i) => {
      if (step.type !== 'llm' || !step.response?.normalized) return
      if (cut[i]) step.response.normalized.finishReason = 'length'
      const call = step.response.normalized.toolCalls[0]
      if (broken[i] && call) {
        call.argsText = `${JSON.stringify(call.args)}}`
        call.args = null
      }
    })
    return errored ? withSteps(run, erroredSteps(run.steps.length, true)) : run
  })
