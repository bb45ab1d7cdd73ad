import { describe, expect, it } from 'vitest'
import type { CheckResult, Run } from '../case/schema/run.ts'
import type { Finding } from '../case/schema/step.ts'
import { detectFindings } from '../checks/detectors/detect-findings.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { type ChatTurn, chatRun } from './internal/test-chat-run.ts'
import { verifyEvidence } from './verify-evidence.ts'

// Rule 5 (docs/diagnose.md): a failed check is blamed on the decision that broke it (the model call that
// chose the action, or an answer cut at the token limit); a failed check outranks a warn-level finding,
// except a loop the run never left; a loop is blamed on its first repeated call. Each run here goes
// through the real detectors, so the findings are the ones a recorded run would carry.

const USER = 'Refund my order A17, it arrived broken'
const ORDER = { name: 'get_order', args: { order_id: 'A17' }, result: { order_id: 'A17', total: 49 } }
const REFUND_490 = { name: 'issue_refund', args: { order_id: 'A17', amount: 490 } }
const CAP: CheckResult[] = [
  { name: 'refundNotAboveTotal', passed: false, message: 'refund of 490 is above the total 49' },
]
const DONE: CheckResult[] = [{ name: 'refundIssued', passed: false, message: 'no refund was issued' }]

/** A graded chat run whose tool steps named in `writes` have side effects, with its detectors' findings. */
function run(turns: ChatTurn[], checks: CheckResult[], writes: string[] = ['issue_refund']): Run {
  const r = chatRun({ user: USER, turns, checks })
  for (const s of r.steps) if (s.type === 'tool' && writes.includes(s.name)) s.sideEffects = true
  r.findings = detectFindings(r)
  return r
}

/** Marks the model call at `index` as cut at the token limit, and detects the findings again. */
function cut(r: Run, index: number): Run {
  const step = r.steps[index]
  if (step?.type !== 'llm' || !step.response?.normalized) throw new Error(`no model call at step ${index}`)
  step.response.normalized.finishReason = 'length'
  r.findings = detectFindings(r)
  return r
}

function diagnosed(r: Run) {
  const d = heuristicDiagnosis(r)
  // Whatever the rule, every quote it keeps is verbatim from the step it cites.
  expect(verifyEvidence(r, d.evidence)).toEqual(d.evidence)
  return d
}

describe('rule 5: a broken rule is the model call that chose the action', () => {
  it('the model call, not the side-effect tool step that ran it, quoting the call', () => {
    const r = run([{ call: ORDER }, { call: REFUND_490 }, { text: 'Refunded.' }], CAP)
    const d = diagnosed(r)
    expect(d).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 2 })
    expect(r.steps[2]?.type).toBe('llm')
    expect(d.evidence).toEqual([{ step: 2, quote: 'call issue_refund {"order_id":"A17","amount":490}' }])
    expect(d.rootCause).toBe(
      'The check refundNotAboveTotal failed: refund of 490 is above the total 49; the model call at step 2 called issue_refund.',
    )
  })

  it('the action the failed check names, not the last side-effect call (a mail sent after it)', () => {
    const r = run(
      [
        { call: ORDER },
        { call: REFUND_490 },
        { call: { name: 'send_email', args: { to: 'kim@example.com', subject: 'Your refund' } } },
        { text: 'Refunded and told you by mail.' },
      ],
      CAP,
      ['issue_refund', 'send_email'],
    )
    expect(diagnosed(r)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 2 })
  })

  it('of two calls of the same tool, the one whose values the check names', () => {
    const r = run(
      [
        { call: ORDER },
        { call: { name: 'issue_refund', args: { order_id: 'A17', amount: 20 } } },
        { call: REFUND_490 },
        { text: 'Refunded in two parts.' },
      ],
      CAP,
    )
    expect(diagnosed(r)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 4 })
  })

  it('a check that names no value: the model call that chose the last side-effect call that worked', () => {
    const r = run(
      [{ call: ORDER }, { call: { name: 'cancel_order', args: { order_id: 'A17' } } }, { text: 'Done.' }],
      DONE,
      ['issue_refund', 'cancel_order'],
    )
    expect(diagnosed(r)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 2 })
  })

  it('a side-effect call no model call announced (the agent code made it): its tool step', () => {
    const r = run([{ call: ORDER }, { call: REFUND_490 }, { text: 'Refunded.' }], CAP)
    const chooser = r.steps[2]
    if (chooser?.type !== 'llm' || !chooser.response?.normalized) throw new Error('no model call at step 2')
    chooser.response.normalized.toolCalls = []
    const d = diagnosed(r)
    expect(d).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 3 })
    expect(d.evidence).toEqual([{ step: 3, quote: '{"order_id":"A17","amount":490}' }])
  })

  it('tools that were not wrapped (no tool step): the model call whose tool call the check names', () => {
    const r = run([{ call: ORDER }, { call: REFUND_490 }, { text: 'Refunded.' }], CAP)
    r.steps = r.steps.filter((s) => s.type === 'llm').map((s, index) => ({ ...s, index }))
    const d = diagnosed(r)
    expect(d).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 1 })
    expect(d.evidence).toEqual([{ step: 1, quote: 'call issue_refund {"order_id":"A17","amount":490}' }])
  })
})

describe('rule 5: an answer cut at the token limit (length_cutoff) is read', () => {
  it('a cut answer that left the task undone is the culprit, not the last tool call before it', () => {
    const r = cut(
      run(
        [{ call: ORDER }, { text: 'I will now refund the order by calling issue_refund with the amou' }],
        DONE,
      ),
      2,
    )
    expect(r.findings.map((f) => [f.kind, f.severity])).toEqual([['length_cutoff', 'warn']])
    const d = diagnosed(r)
    expect(d).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 2 })
    expect(d.evidence).toEqual([{ step: 2, quote: 'finish: length' }])
    expect(d.rootCause).toMatch(
      /the model call at step 2 was cut at the token limit and left the task undone\.$/,
    )
  })

  it('a cut answer the agent went on from is not the culprit: the action the check names is', () => {
    const r = cut(
      run(
        [{ text: 'Let me look the order up first, then I will ch' }, { call: ORDER }, { call: REFUND_490 }],
        CAP,
      ),
      0,
    )
    expect(diagnosed(r)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 3 })
  })
})

describe('rule 5: a failed check outranks a warn-level finding', () => {
  const EMPTY_ORDER = { ...ORDER, result: {} }
  const turns: ChatTurn[] = [{ call: EMPTY_ORDER }, { call: REFUND_490 }, { text: 'Refunded.' }]

  it('a warn-level suspicious result gives way to the failed check', () => {
    const r = run(turns, CAP)
    expect(r.findings.map((f) => [f.kind, f.severity])).toEqual([['suspicious_tool_result', 'warn']])
    expect(diagnosed(r)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 2 })
  })

  it('an error-level finding still comes first', () => {
    const r = run(turns, CAP)
    const empty = r.findings[0] as Finding
    r.findings = [{ ...empty, severity: 'error' }]
    expect(diagnosed(r)).toMatchObject({ label: 'EXTERNAL_FAILURE', failingStep: 1 })
  })

  it('a warn-level finding still decides a run with no failed check (it threw)', () => {
    const r = run(turns, [])
    r.status = 'error'
    expect(diagnosed(r)).toMatchObject({ label: 'EXTERNAL_FAILURE', failingStep: 1 })
  })

  it('a short repetition the agent went on from gives way to the rule its later action broke', () => {
    const r = run(
      [{ call: ORDER }, { call: ORDER }, { call: ORDER }, { call: REFUND_490 }, { text: 'Done.' }],
      CAP,
    )
    expect(r.findings.map((f) => [f.kind, f.severity])).toContainEqual(['step_repetition', 'warn'])
    expect(diagnosed(r)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 6 })
  })
})

describe('rule 5: a loop is its first repeated call', () => {
  it('a loop the run never left stays STEP_REPETITION, even at warn, at the first repeat', () => {
    const r = run(
      [{ call: ORDER }, { call: ORDER }, { call: ORDER }, { text: 'I could not finish this.' }],
      DONE,
    )
    const repetition = r.findings.find((f) => f.kind === 'step_repetition')
    expect(repetition).toMatchObject({ severity: 'warn', steps: [0, 2, 4] })
    const d = diagnosed(r)
    expect(d).toMatchObject({ label: 'STEP_REPETITION', failingStep: 2 })
    expect(d.evidence).toEqual([{ step: 2, quote: '{"order_id":"A17"}' }])
  })

  it('a loop after the action the failed check names: the check outranks it', () => {
    const r = run(
      [
        { call: REFUND_490 },
        { call: ORDER },
        { call: ORDER },
        { call: ORDER },
        { text: 'Could not check it.' },
      ],
      CAP,
    )
    expect(r.findings.find((f) => f.kind === 'step_repetition')).toMatchObject({ severity: 'warn' })
    expect(diagnosed(r)).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 0 })
  })

  it('a critical loop in a run no oracle graded: the first repeat, not the first call', () => {
    const r = run([{ call: ORDER }, { call: ORDER }, { call: ORDER }, { call: ORDER }, { call: ORDER }], [])
    r.status = 'error'
    expect(r.findings.find((f) => f.kind === 'step_repetition')?.severity).toBe('critical')
    expect(diagnosed(r)).toMatchObject({ label: 'STEP_REPETITION', failingStep: 2 })
  })

  it('a repeated call the agent code made (no model call announced it): the repeated tool step', () => {
    const r = run([{ call: ORDER }, { call: ORDER }, { call: ORDER }, { text: 'I give up.' }], DONE)
    for (const s of r.steps)
      if (s.type === 'llm' && s.response?.normalized) s.response.normalized.toolCalls = []
    r.findings = [
      {
        kind: 'step_repetition',
        severity: 'warn',
        steps: [1, 3, 5],
        message: 'get_order was called 3 times with the same arguments',
        evidence: [],
      },
    ]
    expect(diagnosed(r)).toMatchObject({ label: 'STEP_REPETITION', failingStep: 3 })
  })
})
