import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refundRun } from '../../matchers/internal/test-runs.ts'
import type { Run } from '../case/schema/run.ts'
import { isCrashlabError } from '../errors.ts'
import { openStore } from '../store/open-store.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedProvider } from '../testing/types.ts'
import { diagnose } from './diagnose.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { verifyEvidence } from './verify-evidence.ts'

const KEY = 'sk-proj-DiagnoserKeyNeverOnDisk0123456789ab'
/** The refund run of the matchers' tests, graded: it refunded 490 on a 49 order and failed its check. */
function violation(): Run {
  const run = refundRun({ amount: 490 })
  run.checks = [{ name: 'refundNeverExceedsTotal', passed: false, message: 'refunded 490 on a 49 order' }]
  run.outcome = 'fail'
  return run
}

let provider: ScriptedProvider
let answer = ''
let dir: string
beforeAll(async () => {
  provider = await startScriptedProvider({ policy: () => ({ text: answer }) })
  dir = mkdtempSync(join(tmpdir(), 'crashlab-diagnose-'))
})
afterAll(async () => {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('heuristicDiagnosis', () => {
  it('a failed check: TASK_SPEC_VIOLATION at the model call that chose the refund, quoting its call', () => {
    const d = heuristicDiagnosis(violation())
    // Step 2, the model call that asked for the 490 refund, not step 3, the issue_refund tool step that
    // ran it (which this pinned until rule 5 of docs/diagnose.md): the culprit is the decision, and the
    // check's message names the call's amount.
    expect(d).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 2, by: 'heuristic' })
    expect(d.evidence).toEqual([{ step: 2, quote: 'call issue_refund {"order_id":"A17","amount":490}' }])
    expect(d.rootCause).toBe(
      'The check refundNeverExceedsTotal failed: refunded 490 on a 49 order; the model call at step 2 called issue_refund.',
    )
  })

  it('a bad-args finding wins, with its evidence kept only where it is verbatim', () => {
    const run = violation()
    run.findings = [
      {
        kind: 'bad_tool_args',
        severity: 'error',
        steps: [3],
        message: 'issue_refund was called with arguments its schema rejects',
        evidence: ['"amount":490', 'not in the step'],
      },
    ]
    const d = heuristicDiagnosis(run)
    expect(d.label).toBe('BAD_TOOL_ARGUMENTS')
    expect(d.failingStep).toBe(3)
    expect(d.evidence).toEqual([{ step: 3, quote: '"amount":490' }])
  })

  it('a clean run: NO_FAILURE', () => {
    const run = refundRun()
    run.checks = [{ name: 'refundNeverExceedsTotal', passed: true }]
    run.outcome = 'pass'
    expect(heuristicDiagnosis(run).label).toBe('NO_FAILURE')
  })
})

describe('verifyEvidence', () => {
  it('keeps verbatim quotes of the cited step only (white space folded)', () => {
    const run = violation()
    expect(
      verifyEvidence(run, [
        { step: 3, quote: '"amount":490' },
        { step: 1, quote: '"amount":490' },
        { step: 3, quote: 'refunded way too much' },
        { step: 99, quote: 'anything' },
        { step: 4, quote: 'tool (issue_refund result):' },
      ]),
    ).toEqual([{ step: 3, quote: '"amount":490' }])
  })
})

describe('diagnose with a model (the scripted provider plays the diagnoser)', () => {
  it('one call over the compacted trace; a verified answer is kept; the call is recorded apart, without the key', async () => {
    answer = JSON.stringify({
      label: 'TASK_SPEC_VIOLATION',
      failing_step: 3,
      root_cause: 'The agent refunded ten times the order total.',
      evidence: [{ step: 3, quote: '"amount":490' }],
    })
    const before = provider.requests.length
    const store = await openStore({ dir: join(dir, 'diagnoser') })
    try {
      const d = await diagnose(violation(), {
        model: 'diagnoser-model',
        baseUrl: `${provider.url}/v1`,
        apiKey: KEY,
        recordTo: store,
        env: {},
      })
      expect(d).toMatchObject({ label: 'TASK_SPEC_VIOLATION', failingStep: 3, by: 'diagnoser-model' })
      expect(d.evidence).toEqual([{ step: 3, quote: '"amount":490' }])
      expect(provider.requests.length - before).toBe(1)
      const sent = JSON.stringify(provider.requests.at(-1))
      expect(sent).toContain('[step 3] tool issue_refund')
      expect(sent).toContain('check refundNeverExceedsTotal: FAILED')
      const recorded = store.list({ tag: 'diagnoser' })
      expect(recorded).toHaveLength(1)
      expect(store.load(recorded[0]?.id as string).steps[0]?.type).toBe('llm')
    } finally {
      store.close()
    }
    for (const file of walk(join(dir, 'diagnoser'))) expect(readFileSync(file, 'latin1')).not.toContain(KEY)
  })

  it('an answer whose quotes are not in the cited steps becomes UNKNOWN', async () => {
    answer = `Here you go:\n${JSON.stringify({
      label: 'WRONG_TOOL_SELECTION',
      failing_step: 1,
      root_cause: 'It should not have looked the order up.',
      evidence: [{ step: 1, quote: 'the agent ignored the policy' }],
    })}`
    const d = await diagnose(violation(), { model: 'm', baseUrl: `${provider.url}/v1`, env: {} })
    expect(d.label).toBe('UNKNOWN')
    expect(d.rootCause).toContain('WRONG_TOOL_SELECTION')
    expect(d.evidence).toEqual([])
  })

  it('speaks the Anthropic Messages API too', async () => {
    answer = JSON.stringify({
      label: 'NO_FAILURE',
      failing_step: null,
      root_cause: 'Nothing failed.',
      evidence: [],
    })
    const d = await diagnose(refundRun(), {
      model: 'claude-x',
      baseUrl: provider.url,
      api: 'anthropic',
      env: {},
    })
    expect(d).toMatchObject({ label: 'NO_FAILURE', by: 'claude-x' })
    expect(JSON.stringify(provider.requests.at(-1))).toContain('anthropic-messages')
  })

  it('a diagnosis by the same model is cached; no model at all is a clear error', async () => {
    const run = violation()
    run.diagnosis = heuristicDiagnosis(run)
    run.diagnosis.by = 'cached-model'
    const before = provider.requests.length
    expect(await diagnose(run, { model: 'cached-model', baseUrl: `${provider.url}/v1`, env: {} })).toBe(
      run.diagnosis,
    )
    expect(provider.requests.length).toBe(before)
    const error = await diagnose(run, { env: {} }).catch((e: unknown) => e)
    expect(isCrashlabError(error, 'E_DIAGNOSE_CONFIG')).toBe(true)
    expect((error as Error).message).toContain('--heuristic')
  })
})

function walk(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path).flatMap((name) => walk(join(path, name)))
}
