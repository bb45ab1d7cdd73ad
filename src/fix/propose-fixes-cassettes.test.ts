import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  cassettePath,
  diagnosedRun,
  inReplay,
  NOWHERE,
  OPENAI_MODEL,
  RECORDING_KEY,
} from '../../test/fixtures/diagnoser/cases.ts'
import { loadCassette } from '../case/cassette-load.ts'
import type { Run } from '../case/schema/run.ts'
import { isCrashlabError } from '../errors.ts'
import { fixerPrompt } from './prompt.ts'
import { MAX_FIX_CHARS, type ProposeFixesOptions, proposeFixes } from './propose-fixes.ts'

// The fixer's own call, replayed from the cassettes of test/fixtures/diagnoser (recorded against the
// scripted provider by its record.ts) in a strict replay: no model, no provider, nothing on the network.
// These tests check the protocol (the prompt, the parsing, the guards on fixes), never how good a fix is.

const options: ProposeFixesOptions = { model: OPENAI_MODEL, baseUrl: `${NOWHERE}/v1`, env: {} }

/** Proposes fixes for the diagnosed run with the call served by the case's cassette; asserts the replay was clean. */
async function replayFixes(name: string, run: Run = diagnosedRun()) {
  const replayed = await inReplay(cassettePath(name), () => proposeFixes(run, options))
  expect(replayed.error).toBeUndefined()
  expect(replayed.finishError).toBeUndefined()
  expect(replayed.sent).toBe(0)
  expect(replayed.run?.steps.map((s) => s.type)).toEqual(['llm'])
  return replayed.value!
}

describe('the prompt (the request must be the recorded one, byte for byte)', () => {
  it('the recorded call carries the prompt fixerPrompt builds today', () => {
    const run = diagnosedRun()
    const step = loadCassette(cassettePath('fixer-guards')).run.steps[0]
    if (step?.type !== 'llm' || !step.request.normalized) throw new Error('no recorded model call')
    const { system, messages } = step.request.normalized
    const text = (parts: readonly unknown[] | undefined) =>
      (parts ?? []).map((p) => (p as { text?: string }).text ?? '').join('')
    const recorded = { system: text(system), user: text(messages[0]?.parts) }
    expect(recorded).toEqual(fixerPrompt(run, run.diagnosis!))
    expect(recorded.system).toContain('never what a tool returned (no tool_result patch)')
    // The rule-based diagnosis names the decision, the model call that asked for the refund (step 2),
    // quoting its call, and the fixer is shown that same call's request.
    expect(recorded.user).toContain(
      'Diagnosis: TASK_SPEC_VIOLATION at step 2: The check refundNeverExceedsTotal failed',
    )
    expect(recorded.user).toContain('- evidence, step 2: "call issue_refund {\\"amount\\":490,')
    expect(recorded.user).toContain('The model request of step 2:')
    expect(recorded.user).toContain('[step 3] tool issue_refund')
  })

  it('another diagnosis is another request: the replay diverges (E_DIVERGENCE), the call fails', async () => {
    const run = diagnosedRun()
    run.diagnosis!.rootCause = 'The refund was too large.'
    const replayed = await inReplay(cassettePath('fixer-guards'), () => proposeFixes(run, options))
    expect(isCrashlabError(replayed.error, 'E_FIX_CALL')).toBe(true)
    expect(isCrashlabError(replayed.finishError, 'E_DIVERGENCE')).toBe(true)
    expect(replayed.sent).toBe(0)
  })
})

describe('the guards on fixes', () => {
  it('keeps the one good fix; rejects each other proposal with its reason, in the order given', async () => {
    const { fixes, rejected } = await replayFixes('fixer-guards')
    expect(fixes).toEqual([
      {
        id: 'fix-1',
        rank: 1,
        patch: {
          kind: 'system_prompt',
          op: 'append',
          text: 'Before issue_refund, compare the amount with the total get_order returned; never exceed it.',
        },
        rationale: 'The prompt never says to compare.',
        expectedEffect: 'Refunds at most the total.',
      },
    ])
    const reasons = rejected.map((r) => r.reason)
    expect(reasons).toHaveLength(5)
    // A tool_result patch changes what a tool returned: it makes a test pass, it fixes nothing.
    expect(reasons[0]).toMatch(/^test-only: a tool_result patch/)
    expect(rejected[0]?.patch).toEqual({ kind: 'tool_result', tool: 'get_order', result: { total: 490 } })
    // The run's order id and amount written into the fix: it would fix this run only.
    expect(reasons[1]).toMatch(/^hard-codes this run's data \(/)
    expect(reasons[1]).toContain('"A17"')
    expect(reasons[1]).toContain('"49"')
    // A tool the run's request does not offer.
    expect(reasons[2]).toMatch(/^target not found: .*cancel_order/s)
    // Larger than MAX_FIX_CHARS.
    expect(reasons[3]).toMatch(new RegExp(`^too big: \\d+ characters .*at most ${MAX_FIX_CHARS}`))
    // Not a patch at all.
    expect(reasons[4]).toMatch(/^does not parse/)
  })

  it('more than three fixes: the first three kept and ranked as given, the fourth rejected', async () => {
    const { fixes, rejected } = await replayFixes('fixer-too-many')
    expect(fixes.map((f) => [f.id, f.rank, (f.patch as { text: string }).text, f.rationale])).toEqual([
      ['fix-1', 1, 'One: never refund more than the order total.', 'Rationale One.'],
      ['fix-2', 2, 'Two: never refund more than the order total.', 'Rationale Two.'],
      ['fix-3', 3, 'Three: never refund more than the order total.', 'Rationale Three.'],
    ])
    expect(rejected).toEqual([
      {
        patch: { kind: 'system_prompt', op: 'append', text: 'Four: never refund more than the order total.' },
        reason: 'more than 3 fixes: only the first 3 are kept',
      },
    ])
  })

  it('an answer without JSON proposes nothing, and rejects nothing', async () => {
    expect(await replayFixes('fixer-not-json')).toEqual({ fixes: [], rejected: [] })
  })
})

describe('the cassettes', () => {
  it('hold no key', () => {
    for (const name of ['fixer-guards', 'fixer-too-many', 'fixer-not-json']) {
      expect(readFileSync(cassettePath(name), 'utf8')).not.toContain(RECORDING_KEY)
      const step = loadCassette(cassettePath(name)).run.steps[0]
      if (step?.type !== 'llm') throw new Error(`${name}: no recorded model call`)
      expect(Object.keys(step.request.wire.headers)).toEqual(['content-type'])
    }
  })
})
