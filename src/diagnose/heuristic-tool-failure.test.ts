import { describe, expect, it } from 'vitest'
import type { Finding } from '../case/schema/step.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { type ChatTurn, chatRun } from './internal/test-chat-run.ts'
import { findToolFailure } from './internal/tool-failure.ts'

// Rules 2 and 3 (docs/diagnose.md): a failed tool call is TOOL_ERROR_MISHANDLED or EXTERNAL_FAILURE by
// what the model did next; the culprit is the failed tool step either way.

const USER = 'Refund my order A17, it arrived broken'
const FAILED = [{ name: 'refundDone', passed: false, message: 'no refund was issued' }]
const PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center></body>\r\n</html>\r\n'
const CLAIMED = 'All done: everything is taken care of.'
const HONEST = 'I could not look up your order: the order service is unavailable. Please try again later.'

const run = (...turns: ChatTurn[]) => chatRun({ user: USER, turns, checks: FAILED })

describe('heuristicDiagnosis, rules 2 and 3: a failed tool call, judged by what the model did next', () => {
  it('an HTML page with status 200, then a claim of success: TOOL_ERROR_MISHANDLED at the tool step', () => {
    const r = run({ call: { name: 'get_order', args: { order_id: 'A17' }, result: PAGE } }, { text: CLAIMED })
    const d = heuristicDiagnosis(r)
    expect(d).toMatchObject({ label: 'TOOL_ERROR_MISHANDLED', failingStep: 1 })
    expect(d.evidence).toEqual([
      { step: 1, quote: '502 Bad Gateway' },
      { step: 2, quote: `assistant: ${CLAIMED}` },
    ])
    expect(d.rootCause).toBe(
      'The tool get_order answered an HTML or HTTP error page instead of data at step 1, and the model went on at step 2 as if it had worked.',
    )
  })

  it('the same page, told to the user: EXTERNAL_FAILURE at the tool step', () => {
    const r = run({ call: { name: 'get_order', args: { order_id: 'A17' }, result: PAGE } }, { text: HONEST })
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'EXTERNAL_FAILURE', failingStep: 1 })
  })

  it('a thrown error is not called an HTML page; going on with another tool is mishandling it', () => {
    const r = run(
      { call: { name: 'get_order', args: { order_id: 'A17' }, error: 'ETIMEDOUT' } },
      { call: { name: 'issue_refund', args: { order_id: 'A17', amount: 49 } } },
      { text: 'Refunded 49.' },
    )
    const d = heuristicDiagnosis(r)
    expect(d).toMatchObject({ label: 'TOOL_ERROR_MISHANDLED', failingStep: 1 })
    expect(d.rootCause).toBe(
      'The tool get_order threw at step 1, and the model went on at step 2 as if it had worked.',
    )
    expect(d.rootCause).not.toMatch(/HTML/)
    expect(d.evidence[0]).toEqual({ step: 1, quote: 'error Error: ETIMEDOUT' })
  })

  it('a thrown error the model reported: EXTERNAL_FAILURE, and the cause says it threw', () => {
    const r = run(
      { call: { name: 'get_order', args: { order_id: 'A17' }, error: 'ETIMEDOUT' } },
      { text: HONEST },
    )
    const d = heuristicDiagnosis(r)
    expect(d).toMatchObject({ label: 'EXTERNAL_FAILURE', failingStep: 1 })
    expect(d.rootCause).toMatch(/^The tool get_order threw at step 1, and the model told the user at step 2/)
  })

  it('a JSON parse that threw in the agent is found in the next model request, quoting it there', () => {
    const r = run(
      {
        call: {
          name: 'get_order',
          args: { order_id: 'A17' },
          result: { raw: 'ok' },
          sent: `Error: Unexpected token '<', "<html>" is not valid JSON`,
        },
      },
      { text: CLAIMED },
    )
    expect(findToolFailure(r)).toMatchObject({ step: 1, how: 'agent', handling: 'ignored' })
    const d = heuristicDiagnosis(r)
    expect(d).toMatchObject({ label: 'TOOL_ERROR_MISHANDLED', failingStep: 1 })
    expect(d.evidence[0]).toEqual({
      step: 2,
      quote: `Error: Unexpected token '<', "<html>" is not valid JSON`,
    })
  })

  it('retries of the same tool that all fail: the first failed step is the culprit', () => {
    const r = run(
      { call: { name: 'get_order', args: { order_id: 'A17' }, result: PAGE } },
      { call: { name: 'get_order', args: { order_id: 'A17' }, result: PAGE } },
      { text: HONEST },
    )
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'EXTERNAL_FAILURE', failingStep: 1 })
  })

  it('a retry that worked is recovered from: the rule does not apply, the failed check decides', () => {
    const r = run(
      { call: { name: 'get_order', args: { order_id: 'A17' }, error: 'ETIMEDOUT' } },
      { call: { name: 'get_order', args: { order_id: 'A17' }, result: { total: 49 } } },
      { text: 'Your order totals 49.' },
    )
    expect(findToolFailure(r)).toBeNull()
    expect(heuristicDiagnosis(r).label).toBe('TASK_SPEC_VIOLATION')
  })

  it('a tool error that a bad-arguments finding explains stays BAD_TOOL_ARGUMENTS', () => {
    const r = run(
      { call: { name: 'get_order', args: { order_id: 'A17' }, result: { total: 49 } } },
      {
        call: {
          name: 'issue_refund',
          args: { order_id: 'A17', amount: '49' },
          error: 'amount must be a number',
        },
      },
      { text: CLAIMED },
    )
    const finding: Finding = {
      kind: 'bad_tool_args',
      severity: 'error',
      steps: [2],
      message: 'issue_refund: amount must be a number',
      evidence: [],
    }
    r.findings = [finding]
    expect(heuristicDiagnosis(r)).toMatchObject({ label: 'BAD_TOOL_ARGUMENTS', failingStep: 2 })
  })

  it('a run that passed is still NO_FAILURE (rule 1 comes first)', () => {
    const r = chatRun({
      user: USER,
      turns: [{ call: { name: 'get_order', args: { order_id: 'A17' }, result: PAGE } }, { text: HONEST }],
      checks: [{ name: 'honest', passed: true }],
    })
    expect(heuristicDiagnosis(r).label).toBe('NO_FAILURE')
  })
})
