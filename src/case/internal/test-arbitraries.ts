import fc from 'fast-check'
import type { Run } from '../schema/run.ts'
import { count, hex, instant, json, jsonObject, runId, text } from './test-arbitraries-json.ts'
import { cost, stepError, steps } from './test-arbitraries-steps.ts'

/**
 * fast-check arbitraries for valid runs (test-only: `test-*` files are excluded from the build). The
 * strings, keys and numbers, and why they can never look like secrets, are in `test-arbitraries-json.ts`;
 * steps and parts in `test-arbitraries-steps.ts`.
 */

export * from './test-arbitraries-json.ts'
export * from './test-arbitraries-steps.ts'

const index = fc.nat({ max: 50 })

/**
 * A valid `Run` with every optional part present or absent, every step and part type, and free JSON
 * full of awkward keys and values.
 *
 * @example
 * fc.assert(fc.property(run, (r) => RunSchema.safeParse(r).success))
 */
export const run: fc.Arbitrary<Run> = fc.record({
  id: runId,
  name: text,
  tags: fc.array(text, { maxLength: 3 }),
  status: fc.constantFrom('ok', 'error', 'incomplete'),
  outcome: fc.constantFrom('pass', 'fail', 'unknown'),
  completeness: fc.constantFrom('complete', 'partial', 'degraded', 'interrupted', 'unsupported'),
  input: fc.option(json, { nil: null }),
  output: fc.option(json, { nil: null }),
  error: fc.option(stepError, { nil: null }),
  entryPoint: fc.option(
    fc.oneof(
      fc.record({ kind: fc.constant('module' as const), module: text, export: text }),
      fc.record({ kind: fc.constant('test' as const), file: text, test: text }),
    ),
    { nil: null },
  ),
  startedAt: instant,
  endedAt: fc.option(instant, { nil: null }),
  usage: fc.record({
    inputTokens: count,
    outputTokens: count,
    cachedTokens: count,
    reasoningTokens: count,
    llmCalls: count,
    toolCalls: count,
  }),
  cost: fc.option(cost, { nil: null }),
  gitSha: fc.option(hex(40), { nil: null }),
  links: fc.record(
    { replayOf: runId, forkedFrom: runId, forkStep: index, patch: json },
    { requiredKeys: [] },
  ),
  steps,
  checks: fc.array(
    fc.record({ name: text, passed: fc.boolean(), message: text }, { requiredKeys: ['name', 'passed'] }),
    {
      maxLength: 3,
    },
  ),
  findings: fc.array(
    fc.record({
      kind: text,
      severity: fc.constantFrom('info', 'warn', 'error', 'critical'),
      steps: fc.array(index, { maxLength: 3 }),
      message: text,
      evidence: fc.array(text, { maxLength: 2 }),
    }),
    { maxLength: 2 },
  ),
  diagnosis: fc.option(
    fc.record({
      label: fc.constantFrom(
        'TOOL_ERROR_MISHANDLED',
        'BAD_TOOL_ARGUMENTS',
        'STEP_REPETITION',
        'NO_FAILURE',
        'UNKNOWN',
      ),
      failingStep: fc.option(index, { nil: null }),
      rootCause: text,
      evidence: fc.array(fc.record({ step: index, quote: text }), { maxLength: 2 }),
      by: fc.constantFrom('heuristic', 'gpt-4o-mini'),
      createdAt: instant,
    }),
    { nil: null },
  ),
  fixes: fc.array(
    fc.record({
      id: text,
      rank: fc.integer({ min: 1, max: 9 }),
      patch: json,
      rationale: text,
      expectedEffect: text,
    }),
    { maxLength: 2 },
  ),
  redaction: fc.record({
    status: fc.constantFrom('none', 'redacted', 'partial'),
    records: fc.array(fc.record({ path: fc.constantFrom('/run/input', '/run/steps/0/args'), rule: text }), {
      maxLength: 2,
    }),
  }),
  metadata: jsonObject,
}) as fc.Arbitrary<Run>
