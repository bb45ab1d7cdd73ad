import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { type AgentCase, parseAgentCase, toAgentCase, validateAgentCasePayloads } from './index.ts'
import { buildSampleRun } from './internal/test-sample-run.ts'

const VALID = readFileSync(
  new URL('../../../test/fixtures/agentcase/valid-nonascii-nested.agentcase', import.meta.url),
)
const paths = (c: AgentCase) => validateAgentCasePayloads(c).map((i) => i.path)

describe('validateAgentCasePayloads', () => {
  it('accepts payloads that meet the contracts', () => {
    expect(validateAgentCasePayloads(parseAgentCase(VALID))).toEqual([])
    expect(validateAgentCasePayloads(toAgentCase(buildSampleRun()))).toEqual([])
  })

  it('reports missing and mistyped fields with their paths', () => {
    const c = parseAgentCase(VALID)
    delete c.events[1]!.payload.tools
    c.events[1]!.payload.parameters = []
    c.events[2]!.payload.latency_ms = -1
    c.events[3]!.payload.outcome = 'failure'
    expect(paths(c)).toEqual([
      '$.events[1].payload.parameters',
      '$.events[1].payload.tools',
      '$.events[2].payload.latency_ms',
      '$.events[3].payload.outcome',
    ])
  })

  it('checks the parent and the call of a response and a result', () => {
    const c = toAgentCase(buildSampleRun())
    const response = c.events.findIndex((e) => e.event_type === 'model.response')
    const result = c.events.findIndex((e) => e.event_type === 'tool.result')
    c.events[response]!.parent_event_id = c.events[0]!.event_id
    c.events[result]!.payload.call_id = 'call_other'
    c.events[result]!.payload.status = 'ok'
    const failed = c.events.findLast((e) => e.event_type === 'tool.result')!
    delete failed.payload.error
    const issues = validateAgentCasePayloads(c)
    expect(issues.map((i) => i.message)).toEqual([
      'a model.response must have its model.request as parent',
      'tool.result status must be "success" or "failure"',
      '"call_id" differs from its tool.call',
      'a failed tool.result needs "error"',
    ])
  })

  it('checks exception and retry fields', () => {
    const c = toAgentCase(buildSampleRun())
    const exception = c.events.find((e) => e.event_type === 'exception')!
    exception.payload.handled = 'yes'
    const retry = c.events.find((e) => e.event_type === 'retry')!
    retry.payload.attempt = 0
    expect(validateAgentCasePayloads(c).map((i) => i.message)).toEqual([
      '"handled" must be a boolean',
      '"attempt" must be an integer ≥ 1',
    ])
  })

  const minimal = new URL('../../../../shared/agentcase/fixtures/valid_minimal.agentcase', import.meta.url)
  it.skipIf(!existsSync(minimal))(
    'is not applied by the reader: the reference valid_minimal breaks it and still loads',
    () => {
      const c = parseAgentCase(readFileSync(minimal))
      expect(paths(c)).toContain('$.events[3].payload.name')
    },
  )
})
