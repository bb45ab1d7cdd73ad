import { describe, expect, it } from 'vitest'
import { CRASHLAB_EXTENSION } from '../case/agentcase/crashlab-extension.ts'
import { buildSampleRun } from '../case/agentcase/internal/test-sample-run.ts'
import type { AgentCase } from '../case/agentcase/schema.ts'
import { toAgentCase } from '../case/agentcase/to-agent-case.ts'
import type { JsonObject } from '../case/schema/json.ts'
import { compare } from './compare.ts'
import { trajectoryOf } from './trajectory-of.ts'

const baseline = (): AgentCase => toAgentCase(buildSampleRun())
const sameTrajectory = (a: AgentCase, b: AgentCase) =>
  compare(trajectoryOf(a), trajectoryOf(b), { mode: 'normalized' })

describe('trajectoryOf', () => {
  it('keeps event types, tool calls with arguments, tool result statuses, outcome and check verdicts', () => {
    expect(trajectoryOf(baseline())).toStrictEqual({
      outcome: 'failure',
      events: [
        { type: 'execution.start' },
        { type: 'model.request' },
        { type: 'model.response' },
        { type: 'exception' },
        { type: 'retry' },
        { type: 'model.request' },
        { type: 'model.response' },
        { type: 'tool.call', tool: 'get_order', arguments: { id: 'A17' } },
        { type: 'tool.result', tool: 'get_order', status: 'success' },
        { type: 'tool.call', tool: 'issue_refund', arguments: { id: 'A17', amount: 59.9 } },
        { type: 'tool.result', tool: 'issue_refund', status: 'failure' },
        { type: 'exception' },
        { type: 'custom' },
        { type: 'exception' },
        { type: 'exception' },
        { type: 'execution.end' },
      ],
      checks: [
        { name: 'looked order up', passed: true },
        { name: 'refund under limit', passed: false },
      ],
    })
  })

  it('is plain JSON', () => {
    const t = trajectoryOf(baseline())
    expect(JSON.parse(JSON.stringify(t))).toStrictEqual(t)
  })

  it('ignores model prose, ids, timestamps, latencies and messages', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.case_id = '00000000-0000-4000-8000-000000000001'
    for (const e of b.events) {
      e.event_id = crypto.randomUUID()
      e.timestamp = '2030-01-01T00:00:00Z'
      if ('latency_ms' in e.payload) e.payload.latency_ms = 1
      if (e.event_type === 'exception') e.payload.message = 'worded differently'
    }
    b.events[1]!.payload.input = {
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'other words' }] }],
    }
    b.events[6]!.payload.output = { parts: [{ type: 'text', text: 'A different answer.' }], tool_calls: [] }
    const run = (b.extensions[CRASHLAB_EXTENSION] as JsonObject).run as JsonObject
    run.checks = [
      { name: 'refund under limit', passed: false, message: 'issue_refund called with 59.90' },
      { name: 'looked order up', passed: true },
    ]
    expect(compare(a, b).equal).toBe(false)
    expect(sameTrajectory(a, b)).toStrictEqual({ equal: true, differences: [] })
  })

  it('reports a changed tool argument at its path', () => {
    const a = baseline()
    const b = structuredClone(a)
    ;(b.events[9]!.payload.arguments as JsonObject).amount = 590
    expect(sameTrajectory(a, b).differences).toStrictEqual([
      { path: '$.events[9].arguments.amount', kind: 'value_mismatch', expected: 59.9, actual: 590 },
    ])
  })

  it('reports tools called in another order', () => {
    const a = baseline()
    const b = structuredClone(a)
    const first = b.events[7]!.payload
    b.events[7]!.payload = b.events[9]!.payload
    b.events[9]!.payload = first
    expect(sameTrajectory(a, b).differences.map((d) => d.path)).toEqual([
      '$.events[7].arguments.amount',
      '$.events[7].tool',
      '$.events[9].arguments.amount',
      '$.events[9].tool',
    ])
  })

  it('reports a changed outcome, tool status and check verdict', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.outcome = 'success'
    b.events[10]!.payload.status = 'success'
    const run = (b.extensions[CRASHLAB_EXTENSION] as JsonObject).run as JsonObject
    run.checks = [
      { name: 'refund under limit', passed: true },
      { name: 'looked order up', passed: true },
    ]
    expect(sameTrajectory(a, b).differences.map((d) => d.path)).toEqual([
      '$.checks[1].passed',
      '$.events[10].status',
      '$.outcome',
    ])
  })

  it('orders events by sequence, not by array position', () => {
    const a = baseline()
    const b = structuredClone(a)
    b.events.reverse()
    expect(trajectoryOf(b)).toStrictEqual(trajectoryOf(a))
  })

  it('has null checks for a case without the crashlab extension', () => {
    const c = baseline()
    c.extensions = {}
    expect(trajectoryOf(c).checks).toBeNull()
    c.extensions = { [CRASHLAB_EXTENSION]: { run: { checks: 'broken' } } }
    expect(trajectoryOf(c).checks).toBeNull()
  })
})
