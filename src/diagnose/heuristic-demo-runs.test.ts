import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { verifyEvidence } from './verify-evidence.ts'

// The five committed demo runs (examples/refund-bot/demo/runs), each labelled by hand from its trace:
const RUNS = join(import.meta.dirname, '../../examples/refund-bot/demo/runs')
const EXPECTED = {
  // get_order, then issue_refund for the order total: the oracle passes, no finding.
  'clean-refund': { label: 'NO_FAILURE', failingStep: null },
  // The model refunds 490 for an order of 49. It was step 3, the side-effect tool call, until rule 5
  // (docs/diagnose.md): a broken rule is the model call that chose the action, step 2.
  'policy-violation': { label: 'TASK_SPEC_VIOLATION', failingStep: 2 },
  // A gateway's 502 page three times before the refund goes through, and the oracle passes. It was
  // EXTERNAL_FAILURE at step 0 until rule 1 (docs/diagnose.md): a run that returned with every check
  // passing is NO_FAILURE, whatever it recovered from; the retry loop recovered.
  'html-502-retry-loop': { label: 'NO_FAILURE', failingStep: null },
  // The gateway never recovers: five 502s until the circuit breaker stops the loop.
  'circuit-breaker': { label: 'EXTERNAL_FAILURE', failingStep: 0 },
  // The model sends the amount as the string "49": the model call at step 2 made the bad arguments.
  'bad-tool-argument': { label: 'BAD_TOOL_ARGUMENTS', failingStep: 2 },
} as const

describe('heuristicDiagnosis on the five demo runs', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`${name}: ${expected.label}${expected.failingStep === null ? '' : ` at step ${expected.failingStep}`}`, () => {
      const { run } = loadCassette(join(RUNS, `${name}.cassette.json`))
      const diagnosis = heuristicDiagnosis(run)
      expect({ label: diagnosis.label, failingStep: diagnosis.failingStep }).toEqual(expected)
      // Every quote it keeps is verbatim from the step it cites.
      expect(verifyEvidence(run, diagnosis.evidence)).toEqual(diagnosis.evidence)
    })
  }
})
