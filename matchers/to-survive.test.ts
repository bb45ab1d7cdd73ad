import { describe, expect, test } from 'vitest'
import { CrashlabError, type Run, viewRun } from '../src/internal.ts'
import './index.ts'
import { refundRun } from './internal/test-runs.ts'

const CRASH = Symbol.for('crashlab.crash')

interface Cell {
  step: number
  stepType: string
  label: string
  outcome: 'survived' | 'failed' | 'diverged'
  detail: string
}

/** A run carrying a fake crasher, as agentCase() attaches the real one (non-enumerable). */
function crashable(run: Run, crasher: (faults: unknown[], options?: unknown) => Promise<Cell[]>): Run {
  Object.defineProperty(run, CRASH, { value: crasher, enumerable: false, configurable: true })
  return run
}

const cell = (step: number, outcome: Cell['outcome'], detail = 'finished'): Cell => ({
  step,
  stepType: step === 1 ? 'tool' : 'llm',
  label: step === 1 ? 'tool HTML error' : '429 (retry-after 0s)',
  outcome,
  detail,
})

describe('toSurvive', () => {
  test('passes when no cell failed, listing diverged cells in the .not message; gives the crasher the faults and options', async () => {
    const seen: unknown[] = []
    const run = crashable(refundRun(), async (faults, options) => {
      seen.push(faults, options)
      return [cell(0, 'survived'), cell(2, 'diverged', 'DivergenceError: the agent asked for more')]
    })
    await expect(viewRun(run)).toSurvive({ kind: 'rate_limit' }, { steps: [0, 2] })
    expect(seen).toEqual([[{ kind: 'rate_limit' }], { steps: [0, 2] }])
    await expect(expect(run).not.toSurvive([{ kind: 'rate_limit' }])).rejects.toThrow(
      /Expected the agent not to survive, but 1 of 2 cells survived, 0 failed, 1 diverged\.\nDiverged[^\n]*\n {2}↷ step 2 \(llm\) × 429 \(retry-after 0s\): DivergenceError: the agent asked for more/,
    )
  })

  test('fails listing each failed cell with why; .not passes', async () => {
    const run = crashable(refundRun(), async () => [
      cell(0, 'survived'),
      cell(1, 'failed', "TypeError: Cannot read properties of undefined (reading 'status')"),
    ])
    await expect(run).not.toSurvive({ kind: 'tool_html_error' })
    await expect(expect(run).toSurvive({ kind: 'tool_html_error' })).rejects.toThrow(
      /but 1 of 2 cells survived, 1 failed, 0 diverged:\n {2}✖ step 1 \(tool\) × tool HTML error: TypeError: Cannot read properties/,
    )
  })

  test('a run without a crasher, no faults, or faults that fit no step: E_MATCHER_USAGE, in the .not form too', async () => {
    const usage = async (promise: Promise<unknown>, message: RegExp) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(CrashlabError)
      expect((error as CrashlabError).code).toBe('E_MATCHER_USAGE')
      expect((error as Error).message).toMatch(message)
    }
    await usage(expect(refundRun()).toSurvive({ kind: 'rate_limit' }), /carries no crasher/)
    await usage(expect(refundRun()).not.toSurvive({ kind: 'rate_limit' }), /carries no crasher/)
    const none = crashable(refundRun(), async () => [])
    await usage(expect(none).toSurvive([]), /give at least one fault/)
    await usage(expect(none).toSurvive({ kind: 'rate_limit' }), /none of the faults fits a step of run/)
  })
})
