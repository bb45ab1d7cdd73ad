import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRun } from '../create-run.ts'
import { asMcpRun, MCP_HANDSHAKE_LABELS } from '../internal/test-mcp-run.ts'
import { type Run, RunSchema } from '../schema/run.ts'
import {
  type AgentCase,
  CRASHLAB_EXTENSION,
  fromAgentCase,
  parseAgentCase,
  serializeAgentCase,
  toAgentCase,
  validateAgentCasePayloads,
} from './index.ts'
import { recordKey, runArbitrary } from './internal/test-run-arbitrary.ts'
import { buildSampleRun } from './internal/test-sample-run.ts'

const PINNED = {
  runtime: { implementation: 'node', python_version: '22.13.1' },
  platform: { system: 'Linux', release: '6.8.0', machine: 'x86_64' },
}
const exportRun = (run: Run): AgentCase => parseAgentCase(serializeAgentCase(toAgentCase(run, PINNED)))
const types = (c: AgentCase) => c.events.map((e) => e.event_type)

describe('toAgentCase', () => {
  const run = buildSampleRun()
  const c = exportRun(run)

  it('writes a valid case that meets the payload contracts', () => {
    expect(RunSchema.safeParse(run).success).toBe(true)
    expect(validateAgentCasePayloads(c)).toEqual([])
  })

  it('lays the steps out as AgentCase events', () => {
    expect(types(c)).toEqual([
      'execution.start',
      'model.request', // step 0, answered by a 429
      'model.response',
      'exception',
      'retry', // step 1 repeats step 0's request after its error
      'model.request',
      'model.response',
      'tool.call', // step 2
      'tool.result',
      'tool.call', // step 3, which throws
      'tool.result',
      'exception',
      'custom', // step 4, http
      'exception',
      'exception', // the run's own error
      'execution.end',
    ])
  })

  it('links responses to requests, results to calls, calls to the response that asked for them', () => {
    const ev = c.events
    expect(ev[2]!.parent_event_id).toBe(ev[1]!.event_id)
    expect(ev[6]!.parent_event_id).toBe(ev[5]!.event_id)
    expect(ev[8]!.parent_event_id).toBe(ev[7]!.event_id)
    expect(ev[7]!.parent_event_id).toBe(ev[6]!.event_id) // call_1 was asked for by the streamed response
    expect(ev[9]!.parent_event_id).toBe(ev[0]!.event_id) // no call id: hangs under the start
    expect(ev[8]!.payload).toMatchObject({ name: 'get_order', call_id: 'call_1', status: 'success' })
    expect(ev[10]!.payload).toMatchObject({
      name: 'issue_refund',
      call_id: ev[9]!.payload.call_id,
      status: 'failure',
      error: { type: 'RefundDenied', message: 'amount 59.9 exceeds the limit' },
    })
    expect(ev[4]!.payload).toMatchObject({
      attempt: 1,
      reason: 'RateLimitError: Too many requests',
      delay_ms: 1050,
    })
    expect(ev[5]!.parent_event_id).toBe(ev[4]!.event_id)
  })

  it('maps outcome, completeness, exceptions and the end event', () => {
    expect(c.outcome).toBe('failure')
    expect(c.completeness).toBe('complete')
    expect(c.events.at(-1)!.payload).toMatchObject({ outcome: 'failure', duration_ms: 9000 })
    expect(c.events[14]!.payload).toMatchObject({
      exception_type: 'AgentTimeout',
      handled: false,
      error_code: 'E_TIMEOUT',
    })
    expect(c.events[3]!.payload).toMatchObject({
      exception_type: 'RateLimitError',
      handled: true,
      http_status: 429,
    })
    expect(c.events[13]!.payload).toMatchObject({ handled: false }) // the run died on the last step's error
  })

  it('fills metadata, replay provenance and the extension', () => {
    expect(c.metadata).toMatchObject({
      runtime: PINNED.runtime,
      provider: { provider_id: 'openai-chat' },
      model: { model_id: 'gpt-4o-mini', configuration: { temperature: 0.2, maxTokens: 256 } },
      integration: { integration_id: 'crashlab' },
      user_metadata: run.metadata,
    })
    expect(c.replay).toMatchObject({ mode: 'mock', live_side_effects_approved: false })
    expect(c.replay!.source_case_id).toBe(toAgentCase({ ...run, id: run.links.replayOf! }, PINNED).case_id)
    expect(c.extensions[CRASHLAB_EXTENSION]).toMatchObject({
      schema: 1,
      run: { id: run.id, status: 'error' },
    })
    // The SSE chunks travel in the response event's extension.
    expect(JSON.stringify(c.events[6]!.extensions)).toContain('[DONE]')
  })

  it('translates the run redaction records into pointers of the case', () => {
    expect(c.redaction.status).toBe('redacted')
    expect(c.redaction.records).toEqual([
      {
        field_path: `/events/1/extensions/${CRASHLAB_EXTENSION}/step/request/wire/headers/authorization`,
        rule_id: 'sensitive-key',
        replacement_marker: '[REDACTED:sensitive-key]',
        irreversible: true,
      },
      {
        field_path: '/events/5/payload/input/messages/0/parts/0/text',
        rule_id: 'email',
        replacement_marker: '[REDACTED:email]',
        irreversible: true,
      },
      {
        field_path: '/metadata/user_metadata/owner',
        rule_id: 'email',
        replacement_marker: '[REDACTED:email]',
        irreversible: true,
      },
    ])
    expect(c.events[1]!.redaction_status).toBe('redacted')
    expect(c.events[2]!.redaction_status).toBe('none')
  })

  it('is stable: the same run exports the same bytes', () => {
    expect(serializeAgentCase(toAgentCase(buildSampleRun(), PINNED))).toBe(serializeAgentCase(c))
    const other = toAgentCase({ ...buildSampleRun(), id: '01J2ZK3M4N5P6Q7R8S9T0V1W2Y' }, PINNED)
    expect(other.case_id).not.toBe(c.case_id)
    expect(other.events[0]!.event_id).not.toBe(c.events[0]!.event_id)
  })

  it('fills runtime with node and its version by default', () => {
    expect(toAgentCase(run).metadata.runtime).toEqual({
      implementation: 'node',
      python_version: process.versions.node,
    })
  })

  it('does not share objects with the run', () => {
    const fresh = buildSampleRun()
    const out = toAgentCase(fresh, PINNED)
    ;(out.events[7]!.payload.arguments as { id: string }).id = 'changed'
    expect(fresh.steps[2]).toMatchObject({ type: 'tool', args: { id: 'A17' } })
  })

  it('maps a fork to a live replay with the patch as changed configuration', () => {
    const fork = {
      ...buildSampleRun(),
      links: { forkedFrom: '01J2ZK0000000000000000000B', forkStep: 2, patch: { a: 1 } },
    }
    expect(toAgentCase(fork, PINNED).replay).toMatchObject({
      mode: 'live',
      changed_configuration: { patch: { a: 1 } },
      live_side_effects_approved: false,
      determinism_guarantee: 'none',
    })
    expect(toAgentCase({ ...fork, links: {} }, PINNED).replay).toBeNull()
  })
})

describe('status and outcome mapping', () => {
  const base = createRun({
    name: 'map',
    id: '01J2ZK3M4N5P6Q7R8S9T0V1W2Z',
    startedAt: new Date('2026-07-14T00:00:00Z'),
  })
  const table: Array<[Run['status'], Run['outcome'], string | null, AgentCase['outcome']]> = [
    ['ok', 'pass', null, 'success'],
    ['ok', 'unknown', null, 'success'],
    ['ok', 'fail', null, 'failure'],
    ['error', 'pass', 'Error', 'failure'],
    ['error', 'unknown', 'AbortError', 'cancelled'],
    ['error', 'fail', 'TimeoutError', 'timeout'],
    ['incomplete', 'unknown', null, 'partial'],
    ['incomplete', 'fail', null, 'failure'],
  ]
  it.each(table)('%s + %s (%s) → %s, and back exactly', (status, outcome, errorName, expected) => {
    const run: Run = {
      ...base,
      status,
      outcome,
      error: errorName ? { name: errorName, message: 'boom' } : null,
    }
    const c = exportRun(run)
    expect(c.outcome).toBe(expected)
    expect(validateAgentCasePayloads(c)).toEqual([])
    expect(fromAgentCase(c)).toStrictEqual(run)
  })

  it('maps foreign outcomes back to a status', () => {
    const back = (outcome: AgentCase['outcome']) => {
      const c = exportRun({ ...base, status: 'ok', outcome: 'pass' })
      return fromAgentCase({
        ...c,
        outcome,
        events: c.events.map((e) => ({ ...e, extensions: {} })),
        extensions: {},
      })
    }
    expect(back('success')).toMatchObject({ status: 'ok', outcome: 'pass', error: null })
    expect(back('failure')).toMatchObject({ status: 'ok', outcome: 'fail' })
    expect(back('partial')).toMatchObject({ status: 'incomplete', outcome: 'unknown' })
    expect(back('cancelled')).toMatchObject({ status: 'error', error: { name: 'AbortError' } })
    expect(back('timeout')).toMatchObject({ status: 'error', error: { name: 'TimeoutError' } })
    expect(back('unknown')).toMatchObject({ status: 'ok', outcome: 'unknown' })
  })
})

describe('fromAgentCase', () => {
  it('gives back the exact run, through the serialized form', () => {
    const run = buildSampleRun()
    expect(fromAgentCase(exportRun(run))).toStrictEqual(run)
    expect(fromAgentCase(toAgentCase(run))).toStrictEqual(run)
  })

  it('round-trips an empty run', () => {
    const run = createRun({ name: 'empty', id: '01J2ZK3M4N5P6Q7R8S9T0V1W30', startedAt: new Date(0) })
    expect(types(exportRun(run))).toEqual(['execution.start', 'execution.end'])
    expect(fromAgentCase(exportRun(run))).toStrictEqual(run)
  })

  it('imports a crashlab export without its extensions as a foreign case', () => {
    const c = exportRun(buildSampleRun())
    const run = fromAgentCase(c, { useExtensions: false })
    expect(run.steps.map((s) => s.type)).toEqual(['llm', 'llm', 'tool', 'tool'])
    // The payloads are crashlab's normalized shapes, so they are recognized even without the extension.
    const original = buildSampleRun().steps[1]!
    expect(original.type).toBe('llm')
    expect(run.steps[1]).toMatchObject({
      type: 'llm',
      request: { normalized: original.type === 'llm' ? original.request.normalized : 'unreachable' },
    })
    expect(run.steps[3]).toMatchObject({ name: 'issue_refund', error: { name: 'RefundDenied' } })
    expect(run.error).toMatchObject({ name: 'AgentTimeout' })
    expect(run.metadata.agentcaseImport).toMatchObject({
      skippedEvents: [{ eventType: 'retry' }, { eventType: 'custom' }],
    })
  })

  it('reports a damaged extension with its path', () => {
    const c = exportRun(buildSampleRun())
    const broken = structuredClone(c)
    ;(broken.events[1]!.extensions[CRASHLAB_EXTENSION] as { step: { timing: unknown } }).step.timing = 'soon'
    expect(() => fromAgentCase(broken, { source: 'x.agentcase' })).toThrow(
      expect.objectContaining({
        code: 'E_AGENTCASE_INVALID',
        message: expect.stringContaining("$.events[1].extensions['dev.crashlab']"),
      }),
    )
    const rootBroken = { ...c, extensions: { [CRASHLAB_EXTENSION]: { schema: 99 } } }
    expect(() => fromAgentCase(rootBroken)).toThrow(expect.objectContaining({ code: 'E_AGENTCASE_INVALID' }))
  })

  it('imports the project fixture (foreign, no crashlab data) into a valid run', () => {
    const bytes = readFileSync(
      new URL('../../../test/fixtures/agentcase/valid-nonascii-nested.agentcase', import.meta.url),
    )
    const run = fromAgentCase(parseAgentCase(bytes))
    expect(RunSchema.safeParse(run).success).toBe(true)
    expect(run).toMatchObject({ name: 'refund-bot', status: 'ok', outcome: 'pass', steps: [{ type: 'llm' }] })
    expect(run.usage).toMatchObject({ llmCalls: 1, toolCalls: 0 })
  })
})

describe('round trip, property-based', () => {
  it('fromAgentCase(toAgentCase(run)) equals run for any valid run', () => {
    fc.assert(
      fc.property(runArbitrary(), (run) => {
        // Valid means what RunSchema gives back unchanged, not only what it accepts.
        expect(RunSchema.parse(run)).toEqual(run)
        const c = exportRun(run)
        expect(validateAgentCasePayloads(c)).toEqual([])
        expect(fromAgentCase(c)).toEqual(run)
        expect(serializeAgentCase(toAgentCase(run, PINNED))).toBe(serializeAgentCase(c))
      }),
      { numRuns: 300 },
    )
  })

  // The run the property once drew: an own `__proto__` key in params.extra. RunSchema accepts it but,
  // as zod does for any record, gives it back without that key, so the import could not return it.
  const drawn = (): Run => ({
    ...createRun({ id: '00000000000000000000000000', name: '', startedAt: new Date('2026-07-14T07:30:00Z') }),
    status: 'ok',
    outcome: 'pass',
    steps: [
      {
        index: 0,
        timing: { startedAt: '2026-07-14T09:30:00+02:00', durationMs: 0 },
        error: null,
        type: 'llm',
        provider: '',
        endpoint: '',
        request: {
          wire: { method: 'GET', url: '', headers: {}, body: null },
          normalized: {
            model: '',
            system: [],
            messages: [],
            tools: [],
            params: { extra: JSON.parse('{"__proto__":[]}') },
          },
          requestHash: 'h1',
        },
        response: null,
      },
    ],
  })

  it('draws no params.extra key that RunSchema drops', () => {
    expect(RunSchema.parse(drawn())).not.toEqual(drawn())
    expect(recordKey.canShrinkWithoutContext('__proto__')).toBe(false)
  })

  it('round-trips that run as RunSchema gives it back', () => {
    const run = RunSchema.parse(drawn())
    expect(fromAgentCase(exportRun(run))).toEqual(run)
  })
})

describe('MCP steps', () => {
  // The sample run with its tools on an MCP server: issue_refund, which threw, answers `isError` instead.
  const run = asMcpRun(buildSampleRun())
  const c = exportRun(run)
  const calls = c.events.filter((e) => e.event_type === 'tool.call')
  const results = c.events.filter((e) => e.event_type === 'tool.result')

  it('an MCP tool is a tool.call and tool.result like a wrapped tool, its server in the extension', () => {
    expect(validateAgentCasePayloads(c)).toEqual([])
    expect(calls.map((e) => e.payload.name)).toEqual(['get_order', 'issue_refund'])
    const ext = calls.map(
      (e) => (e.extensions[CRASHLAB_EXTENSION] as { step: { mcp?: { server: string } } }).step,
    )
    expect(ext.map((s) => s.mcp?.server)).toEqual(['orders-server', 'orders-server'])
    expect(results.map((e) => e.payload.status)).toEqual(['success', 'failure'])
    expect(results[1]!.payload.error).toEqual({
      type: 'McpToolError',
      message: 'amount 59.9 exceeds the limit',
    })
    // The call went through: the tool's failure is its result, not an exception.
    expect(types(c).filter((t) => t === 'exception')).toHaveLength(
      types(exportRun(buildSampleRun())).filter((t) => t === 'exception').length - 1,
    )
  })

  it('MCP messages are custom events with their label', () => {
    const custom = c.events.filter((e) => e.event_type === 'custom').map((e) => e.payload.label)
    expect(custom).toEqual(expect.arrayContaining(MCP_HANDSHAKE_LABELS))
  })

  it('round-trips: the same steps come back, mcp (server, isError, exchange) included', () => {
    const back = fromAgentCase(c)
    expect(back).toStrictEqual(run)
    const refund = back.steps.find((s) => s.type === 'tool' && s.name === 'issue_refund')
    expect(refund).toMatchObject({ error: null, mcp: { server: 'orders-server', isError: true } })
  })
})
