import { describe, expect, test } from 'vitest'
import type { Run } from '../src/internal.ts'
import './index.ts'
import { refundRun } from './internal/test-runs.ts'

const catalog = { catalog: '@pydantic/genai-prices', catalogVersion: '0.1.8' }

/** The refund run with every LLM step priced at `usd` each (3 LLM steps). */
function pricedRun(usd: number): Run {
  const run = refundRun()
  for (const step of run.steps) if (step.type === 'llm') step.cost = { usd, ...catalog }
  run.cost = { usd: usd * 3, ...catalog }
  return run
}

describe('toCostLessThan', () => {
  test('compares the run cost with the limit, strictly', () => {
    const run = pricedRun(0.001) // $0.003 in all
    expect(run).toCostLessThan(0.004)
    expect(run).not.toCostLessThan(0.003)
    expect(run).not.toCostLessThan(0.001)
  })

  test('a failure shows the cost, the costliest steps and the catalog', () => {
    const run = pricedRun(0.001)
    const first = run.steps[0]
    if (first?.type === 'llm') first.cost = { usd: 0.002, ...catalog }
    expect(() => expect(run).toCostLessThan(0.001)).toThrow(
      /cost less than .*\$0\.001.*, but it cost .*\$0\.003.*; the costliest steps:\n\s+step 0 gpt-4o-mini: \$0\.002[\s\S]*prices: @pydantic\/genai-prices 0\.1\.8/,
    )
  })

  test('an unknown cost throws instead of passing either way, naming the model', () => {
    const run = refundRun() // usage, but no step priced
    expect(() => expect(run).toCostLessThan(1)).toThrow(
      /cost is unknown \(no price is known for "gpt-4o-mini"\)/,
    )
    expect(() => expect(run).not.toCostLessThan(1)).toThrow(/setPrice/)
    const partly = pricedRun(0.001)
    const last = partly.steps.at(-1)
    if (last?.type === 'llm') delete last.cost
    expect(() => expect(partly).toCostLessThan(1)).toThrow(/cost is unknown/)
  })

  test('rejects a limit that is not a number ≥ 0', () => {
    expect(() => expect(pricedRun(0.001)).toCostLessThan(-1)).toThrow(/needs a limit in US dollars/)
    expect(() => expect(pricedRun(0.001)).toCostLessThan('0.1' as never)).toThrow(/needs a limit/)
  })
})
