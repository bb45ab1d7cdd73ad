import { describe, expect, it } from 'vitest'
import { buildSampleRun } from '../case/agentcase/internal/test-sample-run.ts'
import type { AgentCase } from '../case/agentcase/schema.ts'
import { toAgentCase } from '../case/agentcase/to-agent-case.ts'
import type { JsonObject } from '../case/schema/json.ts'
import { compare } from './compare.ts'
import { AGENTCASE_VOLATILE_PATHS, compareAgentCases } from './compare-agent-cases.ts'

const PINNED = {
  runtime: { implementation: 'node', python_version: '22.13.1' },
  platform: { system: 'Linux', release: '6.8.0', machine: 'x86_64' },
}
const baseline = (): AgentCase => toAgentCase(buildSampleRun(), PINNED)
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

/** A copy of the baseline with every volatile schema location changed. */
function withNewVolatiles(c: AgentCase): AgentCase {
  const d = structuredClone(c)
  d.case_id = uuid(1)
  d.execution_id = uuid(2)
  d.created_at = '2030-01-01T00:00:00Z'
  d.replay = null
  d.events.forEach((e, i) => {
    e.event_id = uuid(100 + i)
    if (e.parent_event_id !== null) e.parent_event_id = uuid(500 + i)
    e.timestamp = `2030-01-01T00:00:${String(i).padStart(2, '0')}Z`
  })
  return d
}

describe('compareAgentCases: the regression volatility rules', () => {
  it('treats changed ids, timestamps, created_at and replay at schema locations as equal', () => {
    const a = baseline()
    expect(a.replay).not.toBeNull() // the sample is a replay: its removal must be ignored too
    const b = withNewVolatiles(a)
    // Without the rules every one of them is a difference, so the test below can fail.
    expect(compare(a, b).differences.length).toBeGreaterThanOrEqual(4 + 3 * a.events.length - 1)
    expect(compareAgentCases(a, b)).toStrictEqual({ equal: true, differences: [] })
  })

  it('ignores exactly the documented locations', () => {
    expect(AGENTCASE_VOLATILE_PATHS).toEqual([
      '$.case_id',
      '$.execution_id',
      '$.created_at',
      '$.replay',
      '$.events[*].event_id',
      '$.events[*].parent_event_id',
      '$.events[*].timestamp',
    ])
  })

  it('still compares payload fields named timestamp, event_id and replay', () => {
    const a = baseline()
    const args = a.events[9]!.payload.arguments as JsonObject
    Object.assign(args, { timestamp: '2026-07-14T09:30:00Z', event_id: 'e-1', replay: false })
    const b = withNewVolatiles(a)
    const bArgs = b.events[9]!.payload.arguments as JsonObject
    Object.assign(bArgs, { timestamp: '2026-07-15T09:30:00Z', event_id: 'e-2', replay: true })
    expect(compareAgentCases(a, b).differences).toStrictEqual([
      {
        path: '$.events[9].payload.arguments.event_id',
        kind: 'value_mismatch',
        expected: 'e-1',
        actual: 'e-2',
      },
      { path: '$.events[9].payload.arguments.replay', kind: 'value_mismatch', expected: false, actual: true },
      {
        path: '$.events[9].payload.arguments.timestamp',
        kind: 'value_mismatch',
        expected: '2026-07-14T09:30:00Z',
        actual: '2026-07-15T09:30:00Z',
      },
    ])
  })

  it('compares a root-level timestamp-like key outside the schema locations', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.metadata.user_metadata = { ...b.metadata.user_metadata, created_at: 'now' }
    expect(compareAgentCases(a, b).differences.map((d) => [d.path, d.kind])).toEqual([
      ['$.metadata.user_metadata.created_at', 'unexpected_key'],
    ])
  })

  it('reports a changed tool argument with its path', () => {
    const a = baseline()
    const b = structuredClone(a)
    ;(b.events[9]!.payload.arguments as JsonObject).amount = 590
    expect(compareAgentCases(a, b).differences).toStrictEqual([
      { path: '$.events[9].payload.arguments.amount', kind: 'value_mismatch', expected: 59.9, actual: 590 },
    ])
  })

  it('is normalized by default, and exact on request', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.events[0]!.payload.name = `${String(a.events[0]!.payload.name)}\r\n`
    expect(compareAgentCases(a, b).equal).toBe(true)
    expect(compareAgentCases(a, b, { mode: 'exact' }).differences.map((d) => d.path)).toEqual([
      '$.events[0].payload.name',
    ])
  })

  it('adds ignoredPaths to the defaults rather than replacing them', () => {
    const a = baseline()
    const b = withNewVolatiles(a)
    b.metadata.platform.machine = 'arm64'
    expect(compareAgentCases(a, b).differences.map((d) => d.path)).toEqual(['$.metadata.platform.machine'])
    expect(compareAgentCases(a, b, { ignoredPaths: ['$.metadata.platform'] }).equal).toBe(true)
  })

  it('reports an added event as a length mismatch of $.events', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.events.push(structuredClone(b.events.at(-1)!))
    expect(compareAgentCases(a, b).differences).toStrictEqual([
      { path: '$.events', kind: 'length_mismatch', expected: a.events.length, actual: a.events.length + 1 },
    ])
  })
})
