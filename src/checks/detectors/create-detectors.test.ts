import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Run } from '../../case/schema/run.ts'
import { type Finding, FindingSchema } from '../../case/schema/step.ts'
import { buildAgentRun, type ScriptTurn } from '../internal/test-agent-run.ts'
import { createDetectors } from './create-detectors.ts'
import { detectFindings } from './detect-findings.ts'
import type { ChecksOptions } from './options.ts'

/**
 * The incremental form against the full pass, on random agent runs: the same findings in the end, each
 * raised (or escalated) live at a step, none twice, with evidence quotes that fit the rules.
 */

const RANK = { info: 0, warn: 1, error: 2, critical: 3 } as const
const NAMES = ['get_order', 'issue_refund', 'search'] as const
const ARGS = [{ order_id: 'A17' }, { order_id: 'B42' }, { q: 1 }, {}] as const
const CONTENTS = [
  '{"order_id":"A17","total":49}',
  '{"total":49}',
  '{"error":"no order"}',
  '<html><title>502 Bad Gateway</title></html>',
  '',
  '[1,2',
  'plain text ...',
  'ok',
]

const turnArb: fc.Arbitrary<ScriptTurn> = fc.oneof(
  fc
    .record({
      name: fc.constantFrom(...NAMES),
      args: fc.constantFrom(...ARGS),
      n: fc.integer({ min: 0, max: 99 }),
    })
    .map(({ name, args, n }) => ({ llm: { calls: [{ id: `c${n}`, name, args: { ...args } }] } })),
  fc
    .record({
      n: fc.integer({ min: 0, max: 99 }),
      content: fc.constantFrom(...CONTENTS),
      isError: fc.boolean(),
    })
    .map(({ n, content, isError }) => ({ toolResult: { id: `c${n}`, content, isError } })),
  fc
    .record({
      name: fc.constantFrom(...NAMES),
      args: fc.constantFrom(...ARGS),
      content: fc.constantFrom(...CONTENTS),
      fails: fc.boolean(),
    })
    .map(({ name, args, content, fails }) => ({
      tool: fails
        ? { name, args: { ...args }, error: { name: 'Error', message: content || 'failed' } }
        : { name, args: { ...args }, result: content },
    })),
  fc.constantFrom<ScriptTurn>({ llm: { text: 'thinking' } }, { llm: { text: 'done' } }),
)

const optionsArb: fc.Arbitrary<ChecksOptions> = fc.record(
  {
    maxSteps: fc.integer({ min: 1, max: 30 }),
    maxToolCalls: fc.integer({ min: 1, max: 10 }),
    maxTokens: fc.integer({ min: 1, max: 300 }),
    maxSeconds: fc.double({ min: 0.1, max: 3, noNaN: true }),
    warnAt: fc.double({ min: 0.1, max: 1, noNaN: true }),
    stepRepetition: fc.oneof(
      fc.constant(false as const),
      fc
        .tuple(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 0, max: 3 }))
        .map(([threshold, extra]) => ({ threshold, critical: threshold + extra })),
    ),
    toolErrorStreak: fc.oneof(
      fc.constant(false as const),
      fc
        .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 3 }))
        .map(([threshold, extra]) => ({ threshold, critical: threshold + extra })),
    ),
  },
  { requiredKeys: [] },
)

function randomRun(turns: ScriptTurn[], cut: number[]): Run {
  const run = buildAgentRun(turns)
  const parameters = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }
  for (const step of run.steps) {
    if (step.type === 'llm') step.request.normalized!.tools = [{ name: 'get_order', parameters }]
  }
  for (const i of cut) {
    const step = run.steps[i % Math.max(1, run.steps.length)]
    if (step?.type === 'llm' && step.response?.normalized) step.response.normalized.finishReason = 'length'
  }
  return run
}

/** `a` is `b`'s first steps: a finding that grew keeps the steps it had. */
function isPrefix(a: number[], b: number[]): boolean {
  return a.length <= b.length && a.every((s, i) => b[i] === s)
}

describe('createDetectors: the incremental form', () => {
  it('feeding the steps as they arrive gives the full pass, and raises each final finding at a step', () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(
        fc.array(turnArb, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        optionsArb,
        (turns, cut, options) => {
          const run = randomRun(turns, cut)
          const full = detectFindings(run, options)
          for (const f of full) seen.add(`${f.kind}:${f.severity}`)
          const detectors = createDetectors(options)
          const raised: Finding[] = []
          run.steps.forEach((step, i) => {
            // The run as the Session holds it while recording: only the steps so far.
            const growing = { ...run, steps: run.steps.slice(0, i + 1) }
            for (const f of detectors.observe(step, growing)) {
              // Raised at the step being observed, never later than it.
              expect(Math.max(...f.steps)).toBeLessThanOrEqual(step.index)
              raised.push(f)
            }
          })
          expect(detectors.findings()).toEqual(full)

          for (const f of full) {
            expect(FindingSchema.safeParse(f).success).toBe(true)
            expect([...f.steps].sort((a, b) => a - b)).toEqual(f.steps)
            expect(new Set(f.steps).size).toBe(f.steps.length)
            for (const q of f.evidence) expect(q.length).toBeLessThanOrEqual(200)
            // The live form reported this finding at its final severity, at the step it reached it.
            expect(
              raised.some(
                (r) => r.kind === f.kind && r.severity === f.severity && isPrefix(r.steps, f.steps),
              ),
            ).toBe(true)
          }
          for (const r of raised) {
            expect(
              full.some(
                (f) =>
                  f.kind === r.kind && isPrefix(r.steps, f.steps) && RANK[f.severity] >= RANK[r.severity],
              ),
            ).toBe(true)
          }
          // Never the same finding twice in the final list.
          const keys = full.map((f) => JSON.stringify([f.kind, f.steps, f.message]))
          expect(new Set(keys).size).toBe(keys.length)
        },
      ),
      { numRuns: 200, seed: 20261129 },
    )
    // The random runs reach every detector and every escalation, or the property proves little.
    expect([...seen].sort()).toEqual([
      'bad_tool_args:error',
      'budget:error',
      'budget:warn',
      'length_cutoff:error',
      'length_cutoff:warn',
      'step_repetition:critical',
      'step_repetition:warn',
      'suspicious_tool_result:error',
      'suspicious_tool_result:warn',
      'tool_error_streak:critical',
      'tool_error_streak:warn',
    ])
  })

  it('each detector instance belongs to one run: a second run starts from nothing', () => {
    const turns: ScriptTurn[] = []
    for (let i = 0; i < 3; i++) turns.push({ llm: { calls: [{ id: `c${i}`, name: 'get_order', args: {} }] } })
    const run = buildAgentRun(turns)
    const a = createDetectors()
    for (const s of run.steps) a.observe(s, run)
    expect(a.findings().map((f) => f.kind)).toEqual(['step_repetition'])
    const b = createDetectors()
    b.observe(run.steps[0]!, run)
    expect(b.findings()).toEqual([])
    expect(a.options.stepRepetition).toEqual({ threshold: 3, critical: 5 })
  })
})
