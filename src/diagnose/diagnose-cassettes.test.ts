import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  ANTHROPIC_MODEL,
  cassettePath,
  failingRun,
  inReplay,
  NOWHERE,
  OPENAI_MODEL,
  RECORDING_KEY,
} from '../../test/fixtures/diagnoser/cases.ts'
import { loadCassette } from '../case/cassette-load.ts'
import type { Run } from '../case/schema/run.ts'
import { isCrashlabError } from '../errors.ts'
import { type DiagnoseOptions, diagnose } from './diagnose.ts'
import { diagnoserPrompt } from './prompt.ts'

// The diagnoser's own call, replayed from the cassettes of test/fixtures/diagnoser (recorded against the
// scripted provider by its record.ts): no model, no provider, nothing on the network. A strict replay
// serves a call only when its request hash (the prompt included) is the recorded one, and fails the run
// when the recorded call is left unused. These tests check the protocol (the prompt, the parsing, the
// quote check, the cache), never how good a diagnosis is.

const openai: DiagnoseOptions = { model: OPENAI_MODEL, baseUrl: `${NOWHERE}/v1`, env: {} }
const anthropic: DiagnoseOptions = { model: ANTHROPIC_MODEL, baseUrl: NOWHERE, api: 'anthropic', env: {} }

/** Diagnoses the failing run with the call served by the case's cassette; asserts the replay was clean. */
async function replayDiagnose(name: string, options: DiagnoseOptions, run: Run = failingRun()) {
  const replayed = await inReplay(cassettePath(name), () => diagnose(run, options))
  expect(replayed.error).toBeUndefined()
  expect(replayed.finishError).toBeUndefined()
  expect(replayed.sent).toBe(0)
  expect(replayed.run?.steps.map((s) => s.type)).toEqual(['llm'])
  return replayed.value!
}

/** The system and user text of the call a cassette recorded. */
function recordedPrompt(name: string): { system: string; user: string } {
  const step = loadCassette(cassettePath(name)).run.steps[0]
  if (step?.type !== 'llm' || !step.request.normalized) throw new Error(`${name}: no recorded model call`)
  const { system, messages } = step.request.normalized
  const text = (parts: readonly unknown[] | undefined) =>
    (parts ?? []).map((p) => (p as { text?: string }).text ?? '').join('')
  expect(messages.map((m) => m.role)).toEqual(['user'])
  return { system: text(system), user: text(messages[0]?.parts) }
}

describe('the prompt (the request must be the recorded one, byte for byte)', () => {
  it('the recorded call carries the prompt diagnoserPrompt builds today, OpenAI and Anthropic alike', () => {
    const now = diagnoserPrompt(failingRun())
    for (const name of ['diagnoser-openai', 'diagnoser-anthropic']) {
      const recorded = recordedPrompt(name)
      expect(recorded).toEqual(now)
      expect(recorded.system).toContain('Quote only text that appears exactly in the step you cite')
      expect(recorded.user).toContain('- check refundNeverExceedsTotal: FAILED')
      expect(recorded.user).toContain(
        '[step 3] tool issue_refund\nissue_refund {"amount":490,"order_id":"A17"} → {"ok":true,"refund_id":"rf_1"}',
      )
    }
  })

  it('one changed line of the trace is another request: the replay diverges (E_DIVERGENCE), the call fails', async () => {
    const run = failingRun()
    const step = run.steps[3]
    if (step?.type !== 'tool') throw new Error('step 3 is the refund tool call')
    step.result = { ok: true, refund_id: 'rf_2' }
    const replayed = await inReplay(cassettePath('diagnoser-openai'), () => diagnose(run, openai))
    expect(isCrashlabError(replayed.error, 'E_DIAGNOSE_CALL')).toBe(true)
    expect(isCrashlabError(replayed.finishError, 'E_DIVERGENCE')).toBe(true)
    expect(replayed.sent).toBe(0)
  })

  it('another model is another request too; and a recorded call never made fails the replay (E_REPLAY_UNUSED)', async () => {
    const other = await inReplay(cassettePath('diagnoser-openai'), () =>
      diagnose(failingRun(), { ...openai, model: 'another-model' }),
    )
    expect(isCrashlabError(other.finishError, 'E_DIVERGENCE')).toBe(true)
    const unused = await inReplay(cassettePath('diagnoser-openai'), async () => undefined)
    expect(isCrashlabError(unused.finishError, 'E_REPLAY_UNUSED')).toBe(true)
  })
})

describe('the parsing', () => {
  it('an OpenAI-compatible answer: label, failing step, root cause and both verbatim quotes', async () => {
    const d = await replayDiagnose('diagnoser-openai', openai)
    expect(d).toMatchObject({
      label: 'TASK_SPEC_VIOLATION',
      failingStep: 2,
      rootCause: 'The agent refunded ten times the order total it had just looked up.',
      by: OPENAI_MODEL,
    })
    expect(d.evidence).toEqual([
      { step: 2, quote: 'call issue_refund {"amount":490,"order_id":"A17"}' },
      { step: 1, quote: '"total":49' },
    ])
  })

  it('an Anthropic answer in prose and a code fence; white space in a quote is folded, the root cause trimmed', async () => {
    const d = await replayDiagnose('diagnoser-anthropic', anthropic)
    expect(d).toMatchObject({
      label: 'TASK_SPEC_VIOLATION',
      failingStep: 3,
      rootCause: 'The refund exceeded the order total.',
      by: ANTHROPIC_MODEL,
    })
    expect(d.evidence).toEqual([{ step: 3, quote: 'issue_refund   {"amount":490,' }])
  })

  it('an answer that is not JSON: UNKNOWN, saying so', async () => {
    const d = await replayDiagnose('diagnoser-not-json', openai)
    expect(d).toMatchObject({ label: 'UNKNOWN', failingStep: null, evidence: [], by: OPENAI_MODEL })
    expect(d.rootCause).toBe('The diagnoser did not answer with the JSON asked for.')
  })

  it('JSON without a root cause, with a label outside the taxonomy: UNKNOWN the same way', async () => {
    const d = await replayDiagnose('diagnoser-missing-fields', openai)
    expect(d).toMatchObject({ label: 'UNKNOWN', failingStep: null, evidence: [] })
    expect(d.rootCause).toBe('The diagnoser did not answer with the JSON asked for.')
  })
})

describe('the quote check', () => {
  it('a fabricated quote (in no step): the answer is downgraded to UNKNOWN, its label kept in the root cause', async () => {
    const d = await replayDiagnose('diagnoser-fabricated-quote', openai)
    expect(d).toMatchObject({ label: 'UNKNOWN', failingStep: 1, evidence: [] })
    expect(d.rootCause).toBe(
      'The diagnoser said WRONG_TOOL_SELECTION (It should not have looked the order up.) but quoted nothing found in the steps it cited.',
    )
  })

  it('a misattributed quote (verbatim in step 2, cited at step 3): dropped, and the answer is UNKNOWN', async () => {
    expect(JSON.stringify(failingRun().steps[2])).toContain('The order arrived damaged; refunding it.')
    const d = await replayDiagnose('diagnoser-misattributed-quote', openai)
    expect(d).toMatchObject({ label: 'UNKNOWN', failingStep: 3, evidence: [] })
    expect(d.rootCause).toContain('The diagnoser said TASK_SPEC_VIOLATION')
  })

  it('one quote where cited and one misattributed: the label stands, the misattributed quote is dropped', async () => {
    const d = await replayDiagnose('diagnoser-partly-misattributed', openai)
    expect(d).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 3 })
    expect(d.evidence).toEqual([{ step: 3, quote: '"amount":490' }])
  })
})

describe('the cache', () => {
  it('a second diagnose by the same model makes no call (the replay has none left to serve); force would call', async () => {
    const run = failingRun()
    const replayed = await inReplay(cassettePath('diagnoser-openai'), async () => {
      const first = await diagnose(run, openai)
      run.diagnosis = first
      const second = await diagnose(run, openai)
      return { first, second }
    })
    expect(replayed.finishError).toBeUndefined()
    expect(replayed.value?.second).toBe(replayed.value?.first)

    // The same, forced: the second call reaches the replay, which has nothing left for it.
    const again = failingRun()
    const forced = await inReplay(cassettePath('diagnoser-openai'), async () => {
      again.diagnosis = await diagnose(again, openai)
      return diagnose(again, { ...openai, force: true })
    })
    expect(isCrashlabError(forced.error, 'E_DIAGNOSE_CALL')).toBe(true)
    expect(isCrashlabError(forced.finishError, 'E_DIVERGENCE')).toBe(true)
  })
})

describe('the cassettes', () => {
  it('hold no key: the request headers kept are the content type and the API version only', () => {
    for (const name of [
      'diagnoser-openai',
      'diagnoser-anthropic',
      'diagnoser-fabricated-quote',
      'diagnoser-misattributed-quote',
      'diagnoser-partly-misattributed',
      'diagnoser-not-json',
      'diagnoser-missing-fields',
    ]) {
      expect(readFileSync(cassettePath(name), 'utf8')).not.toContain(RECORDING_KEY)
      const step = loadCassette(cassettePath(name)).run.steps[0]
      if (step?.type !== 'llm') throw new Error(`${name}: no recorded model call`)
      expect(Object.keys(step.request.wire.headers).sort()).toEqual(
        name === 'diagnoser-anthropic' ? ['anthropic-version', 'content-type'] : ['content-type'],
      )
    }
  })
})
