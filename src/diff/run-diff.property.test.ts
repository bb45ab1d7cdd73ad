import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRun } from '../case/create-run.ts'
import type { Run } from '../case/schema/run.ts'
import type { ToolStep } from '../case/schema/step.ts'
import { diffRuns } from './run-diff.ts'

// Runs of tool steps from a tiny alphabet (two tools, three arguments, two results), so that two
// independent draws share many steps, repeat steps, and differ in every way a run diff can tell.
const toolStep = fc.record({
  name: fc.constantFrom('get_order', 'issue_refund'),
  v: fc.integer({ min: 0, max: 2 }),
  r: fc.integer({ min: 0, max: 1 }),
})
const steps = fc.array(toolStep, { maxLength: 12 })

function runOf(specs: ReadonlyArray<{ name: string; v: number; r: number }>, id: string): Run {
  const run = createRun({ id, name: 'prop', startedAt: new Date(0) })
  run.steps = specs.map(
    (s, index): ToolStep => ({
      index,
      type: 'tool',
      name: s.name,
      args: { v: s.v },
      result: { r: s.r },
      sideEffects: false,
      timing: { startedAt: new Date(0).toISOString(), durationMs: 1 },
      error: null,
    }),
  )
  return run
}

const A = '01M8KQ0000RUNDIFFPR0PA0001'
const B = '01M8KQ0000RUNDIFFPR0PB0001'

describe('diffRuns alignment (property)', () => {
  it('lists every step of each run once, in order, and labels each pair by what differs', () => {
    fc.assert(
      fc.property(steps, steps, (xs, ys) => {
        const a = runOf(xs, A)
        const b = runOf(ys, B)
        const d = diffRuns(a, b)
        const as = d.alignment.flatMap((r) => (r.a === undefined ? [] : [r.a]))
        const bs = d.alignment.flatMap((r) => (r.b === undefined ? [] : [r.b]))
        expect(as).toEqual(xs.map((_, i) => i))
        expect(bs).toEqual(ys.map((_, i) => i))
        for (const row of d.alignment) {
          const sa = row.a === undefined ? undefined : xs[row.a]
          const sb = row.b === undefined ? undefined : ys[row.b]
          if (row.status === 'only_a') expect(sb).toBeUndefined()
          else if (row.status === 'only_b') expect(sa).toBeUndefined()
          else {
            expect(sa?.name).toBe(sb?.name)
            expect(sa?.v === sb?.v).toBe(row.status !== 'different_request')
            if (row.status !== 'different_request') expect(sa?.r === sb?.r).toBe(row.status === 'same')
          }
        }
        const first = d.alignment.find((r) => r.status !== 'same')
        expect(d.firstDivergence?.status).toBe(first?.status)
      }),
      { numRuns: 300 },
    )
  })

  it('a run against a copy of itself is the same at every step', () => {
    fc.assert(
      fc.property(steps, (xs) => {
        const d = diffRuns(runOf(xs, A), runOf(xs, B))
        expect(d.alignment.every((r) => r.status === 'same' && r.a === r.b)).toBe(true)
        expect(d.firstDivergence).toBeUndefined()
      }),
    )
  })
})
