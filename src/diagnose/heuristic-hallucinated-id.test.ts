import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../case/schema/json.ts'
import type { ToolDefinition } from '../case/schema/normalized.ts'
import type { Finding } from '../case/schema/step.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { findHallucinatedId, isIdLike } from './internal/hallucinated-id.ts'
import { type ChatRunOptions, chatRun } from './internal/test-chat-run.ts'

// Rule 6: a hallucinated id, an argument value that appears in no earlier message or tool result, is
// BAD_TOOL_ARGUMENTS at the model call that emitted the tool call with the invented value.

const FAILED = [{ name: 'refundDone', passed: false, message: 'no refund was issued' }]
const USER = 'Refund my order A17, it arrived broken'
const ORDER = { name: 'get_order', args: { order_id: 'A17' }, result: { order_id: 'A17', total: 49 } }

/** get_order on the user's order, then a write with `args` that the backend refuses; the checks fail. */
function writeRun(args: JsonValue, options: Partial<ChatRunOptions> = {}) {
  return chatRun({
    user: USER,
    turns: [
      { call: ORDER },
      { call: { name: 'issue_refund', args, error: 'no such record' } },
      { text: 'All done.' },
    ],
    checks: FAILED,
    ...options,
  })
}

describe('heuristicDiagnosis, rule 6: a hallucinated id', () => {
  it('an order id nobody gave: BAD_TOOL_ARGUMENTS at the model call that sent it, quoting it', () => {
    const run = writeRun({ order_id: 'A71', amount: 49 })
    const d = heuristicDiagnosis(run)
    expect(d).toMatchObject({ label: 'BAD_TOOL_ARGUMENTS', failingStep: 2 })
    expect(run.steps[2]?.type).toBe('llm')
    expect(d.evidence).toEqual([{ step: 2, quote: '"order_id":"A71"' }])
    expect(d.rootCause).toBe(
      'The model call at step 2 called issue_refund with order_id "A71", which appears in no earlier message or tool result: a hallucinated id.',
    )
  })

  it('the first model call that sent it is the culprit, not a later one that repeats it', () => {
    const run = chatRun({
      user: USER,
      turns: [
        { call: { name: 'get_order', args: { order_id: 'ORD-99120' }, error: 'no order ORD-99120' } },
        { call: { name: 'get_order', args: { order_id: 'ORD-99120' }, error: 'no order ORD-99120' } },
        { text: 'I could not find it.' },
      ],
      checks: FAILED,
    })
    expect(heuristicDiagnosis(run)).toMatchObject({ label: 'BAD_TOOL_ARGUMENTS', failingStep: 0 })
  })

  it('an id nested in an array, with no id-like key: found by its shape', () => {
    const run = writeRun({ items: [{ sku: 'A17' }, 'KX-4410'] })
    expect(findHallucinatedId(run)).toEqual({
      step: 2,
      tool: 'issue_refund',
      key: 'items',
      value: 'KX-4410',
      quote: '"KX-4410"',
    })
  })

  it('wins over the repetition and error-streak findings it causes', () => {
    const run = writeRun({ order_id: 'A71' })
    const echo: Finding[] = [
      { kind: 'step_repetition', severity: 'error', steps: [2, 4], message: 'repeated', evidence: [] },
      { kind: 'tool_error_streak', severity: 'error', steps: [3], message: 'failed', evidence: [] },
    ]
    run.findings = echo
    expect(heuristicDiagnosis(run)).toMatchObject({ label: 'BAD_TOOL_ARGUMENTS', failingStep: 2 })
  })

  it('with a bad-arguments finding too, the earlier of the two is the culprit', () => {
    const schema = (step: number): Finding => ({
      kind: 'bad_tool_args',
      severity: 'error',
      steps: [step],
      message: 'issue_refund was called with arguments its schema rejects',
      evidence: [],
    })
    const later = writeRun({ order_id: 'A71' })
    later.findings = [schema(4)]
    expect(heuristicDiagnosis(later)).toMatchObject({ label: 'BAD_TOOL_ARGUMENTS', failingStep: 2 })
    const earlier = writeRun({ order_id: 'A71' })
    earlier.findings = [schema(0)]
    expect(heuristicDiagnosis(earlier)).toMatchObject({
      label: 'BAD_TOOL_ARGUMENTS',
      failingStep: 0,
      rootCause: 'issue_refund was called with arguments its schema rejects.',
    })
  })

  it('a run that passed after the model corrected the id is still NO_FAILURE (rule 1 first)', () => {
    const run = chatRun({
      user: USER,
      turns: [
        { call: { name: 'get_order', args: { order_id: 'A71' }, error: 'no order A71' } },
        { call: ORDER },
        { text: 'Found it.' },
      ],
      checks: [{ name: 'refundDone', passed: true }],
    })
    expect(findHallucinatedId(run)?.step).toBe(0)
    expect(heuristicDiagnosis(run).label).toBe('NO_FAILURE')
  })
})

describe('heuristicDiagnosis, rule 6: look-alikes that are not hallucinated', () => {
  const TIERS: ToolDefinition = {
    name: 'issue_refund',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' }, tier: { type: 'string', enum: ['T2-GOLD', 'T3-PLAT'] } },
    },
  }
  const cases: Array<[string, JsonValue, Partial<ChatRunOptions>]> = [
    [
      'an id the user gave, as a substring, in another case',
      { order_id: 'A17' },
      { user: 'order #a17, broken' },
    ],
    ['an id from the system prompt', { account_id: 'ACC-20931' }, { system: 'The account is ACC-20931.' }],
    [
      'an id inside a tool result',
      { order_id: 'A17', refund_ref: 'RF-88123' },
      {
        turns: [
          { call: { ...ORDER, result: { order_id: 'A17', total: 49, refund_ref: 'RF-88123' } } },
          {
            call: {
              name: 'issue_refund',
              args: { order_id: 'A17', refund_ref: 'RF-88123' },
              error: 'refused',
            },
          },
        ],
      },
    ],
    [
      'an id quoted as JSON inside a JSON string in a tool result',
      { booking_ref: 'QX7P2L' },
      {
        turns: [
          { call: { ...ORDER, result: JSON.stringify({ data: JSON.stringify({ ref: 'QX7P2L' }) }) } },
          { call: { name: 'issue_refund', args: { booking_ref: 'QX7P2L' }, error: 'refused' } },
        ],
      },
    ],
    [
      'an id written with other separators',
      { booking_ref: 'QX7-P2L' },
      { user: 'Order A17, booking qx7p2l, refund it' },
    ],
    ['numbers and booleans', { order_id: 'A17', customer_id: 48213, amount: 49, notify: true }, {}],
    ['short generic words', { order_id: 'A17', confirm: 'yes', currency: 'USD', currency_code: 'EUR' }, {}],
    [
      'a date the user gave in another format',
      { order_id: 'A17', date: '2026-11-03' },
      { user: 'Refund my order A17 from November 3rd' },
    ],
    ['an enum value of the tool schema', { order_id: 'A17', tier: 'T2-GOLD' }, { tools: [TIERS] }],
    ['a value made of a seen id', { order_id: 'A17', idempotency_key: 'refund-A17' }, {}],
    [
      'prose, an e-mail address, a URL',
      { note: 'Refund A17 in 5 days', email: 'kim4@example.com', url: 'https://x.io/a17b2' },
      {},
    ],
  ]
  for (const [what, args, options] of cases) {
    it(what, () => {
      const run = writeRun(args, options)
      expect(findHallucinatedId(run)).toBeNull()
      // Not BAD_TOOL_ARGUMENTS. A run that ends on "All done." after the write failed is, since the
      // failed-tool rule (docs/diagnose.md), TOOL_ERROR_MISHANDLED at that write; the two whose turns end
      // on the failed write, with no model call after it, still fall through to the failed check.
      const after = run.steps.at(-1)?.type === 'llm'
      expect(heuristicDiagnosis(run).label).toBe(after ? 'TOOL_ERROR_MISHANDLED' : 'TASK_SPEC_VIOLATION')
    })
  }
})

describe('isIdLike', () => {
  it.each([
    ['order_id', 'A17'],
    ['bookingRef', 'QX7P2L'],
    ['flight_no', 'LH400'],
    ['ticket-number', '4410'],
    ['note', 'INV-2041'],
    ['items', 'sku_77a1'],
  ])('%s: %s is an id', (key, value) => expect(isIdLike(key, value)).toBe(true))

  it.each([
    ['currency', 'USD'],
    ['confirm', 'yes'],
    ['order_id', '12'],
    ['quantity', '4410'],
    ['date', '2026-11-03'],
    ['start', '2026-11-03T09:00:00Z'],
    ['email', 'kim4@example.com'],
    ['url', 'https://x.io/a17'],
    ['note', 'order A17 please'],
    ['version', '1.2.3'],
    ['order_id', 'ABCDEF'],
  ])('%s: %s is not an id', (key, value) => expect(isIdLike(key, value)).toBe(false))
})
