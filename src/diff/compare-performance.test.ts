import { describe, expect, it } from 'vitest'
import { serializeAgentCase } from '../case/agentcase/serialize-agent-case.ts'
import { toAgentCase } from '../case/agentcase/to-agent-case.ts'
import { buildRealisticRun } from '../case/internal/test-runs.ts'
import { compare } from './compare.ts'
import { compareAgentCases } from './compare-agent-cases.ts'

/**
 * A sanity bound, not a benchmark (bench/diff.bench.ts measures it against `isDeepStrictEqual`): two
 * separately parsed copies of a 1,000-step run (~2,000 events, ~5 MB) compare in tens of milliseconds
 * here. The bound is far above that so that a slow CI machine never fails it, and far below what a
 * quadratic walk or a per-node path string would cost.
 */
const BOUND_MS = 1000

describe('compare: large documents', () => {
  const text = serializeAgentCase(toAgentCase(buildRealisticRun({ steps: 1000, seed: 7 })))
  const a = JSON.parse(text)
  const b = JSON.parse(text)

  it('compares two equal 5 MB AgentCases well under a second', () => {
    expect(text.length).toBeGreaterThan(4_000_000)
    expect(a.events.length).toBeGreaterThanOrEqual(1000)
    for (const mode of ['exact', 'structural', 'normalized'] as const) {
      const started = performance.now()
      const result = compare(a, b, { mode })
      const elapsed = performance.now() - started
      expect(result.equal).toBe(true)
      expect(elapsed).toBeLessThan(BOUND_MS)
    }
  })

  it('finds one changed tool argument among 1,000 steps, with its path, just as fast', () => {
    const c = JSON.parse(text)
    const i = c.events.findLastIndex((e: { event_type: string }) => e.event_type === 'tool.call')
    c.events[i].payload.arguments = { ...c.events[i].payload.arguments, amount: 490 }
    const started = performance.now()
    const { differences } = compareAgentCases(a, c)
    expect(performance.now() - started).toBeLessThan(BOUND_MS)
    expect(differences.map((d) => d.path)).toEqual([`$.events[${i}].payload.arguments.amount`])
  })
})
