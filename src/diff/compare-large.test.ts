import { describe, expect, it } from 'vitest'
import { serializeAgentCase } from '../case/agentcase/serialize-agent-case.ts'
import { toAgentCase } from '../case/agentcase/to-agent-case.ts'
import { buildRealisticRun } from '../case/internal/test-runs.ts'
import { compare } from './compare.ts'
import { compareAgentCases } from './compare-agent-cases.ts'

/**
 * Large documents compare correctly. How fast is measured in bench/diff.bench.ts, against
 * `isDeepStrictEqual` in the same run, not asserted here.
 */
describe('compare: large documents', () => {
  const text = serializeAgentCase(toAgentCase(buildRealisticRun({ steps: 1000, seed: 7 })))
  const a = JSON.parse(text)
  const b = JSON.parse(text)

  it('finds two separately parsed 5 MB AgentCases equal in every mode', () => {
    expect(text.length).toBeGreaterThan(4_000_000)
    expect(a.events.length).toBeGreaterThanOrEqual(1000)
    for (const mode of ['exact', 'structural', 'normalized'] as const) {
      const result = compare(a, b, { mode })
      expect(result.equal).toBe(true)
      expect(result.differences).toEqual([])
    }
  })

  it('finds one changed tool argument among 1,000 steps, with its path', () => {
    const c = JSON.parse(text)
    const i = c.events.findLastIndex((e: { event_type: string }) => e.event_type === 'tool.call')
    c.events[i].payload.arguments = { ...c.events[i].payload.arguments, amount: 490 }
    const { differences } = compareAgentCases(a, c)
    expect(differences.map((d) => d.path)).toEqual([`$.events[${i}].payload.arguments.amount`])
  })
})
