import { describe, expect, test } from 'vitest'
import { buildRefundRun } from '../../examples/hand-built-run.ts'
import { asMcpRun, MCP_HANDSHAKE_LABELS } from '../case/internal/test-mcp-run.ts'
import { buildAgentRun } from './internal/test-agent-run.ts'
import { viewRun } from './run-view.ts'

const getOrder = { id: 'call_1', name: 'get_order', args: { order_id: 'A17' } }
const refund = { id: 'call_2', name: 'issue_refund', args: { order_id: 'A17', amount: 49 } }

describe('viewRun', () => {
  test('keeps the run fields and points back at the run', () => {
    const run = buildAgentRun([{ llm: { text: 'Done.' } }], { output: 'Done.' })
    const view = viewRun(run)
    expect(view.run).toBe(run)
    expect(view.steps).toBe(run.steps)
    expect(view.output).toBe('Done.')
    expect(view.usage).toEqual(run.usage)
    expect(view.outcome).toBe('unknown')
    expect(view.name).toBe('refund-bot')
  })

  test('llmCalls lists the llm steps only, and a copy each time', () => {
    const view = viewRun(buildRefundRun())
    expect(view.llmCalls().map((s) => s.index)).toEqual([0, 2])
    view.llmCalls().pop()
    expect(view.llmCalls()).toHaveLength(2)
  })
})

describe('toolCalls', () => {
  test('an unwrapped agent: calls come from model responses, paired with the next request’s results', () => {
    const run = buildAgentRun([
      { llm: { calls: [getOrder] } },
      { toolResult: { id: 'call_1', content: '{"total":49}' } },
      { llm: { calls: [refund] } },
      { toolResult: { id: 'call_2', content: 'refund service unavailable', isError: true } },
      { llm: { text: 'Sorry, the refund failed.' } },
    ])
    const calls = viewRun(run).toolCalls()
    expect(calls).toEqual([
      {
        name: 'get_order',
        args: { order_id: 'A17' },
        result: '{"total":49}',
        isError: false,
        step: 0,
        source: 'model',
        callId: 'call_1',
        llmStep: 0,
      },
      {
        name: 'issue_refund',
        args: { order_id: 'A17', amount: 49 },
        result: 'refund service unavailable',
        error: { name: 'ToolError', message: 'refund service unavailable' },
        isError: true,
        step: 1,
        source: 'model',
        callId: 'call_2',
        llmStep: 1,
      },
    ])
    expect(viewRun(run).toolCalls('issue_refund', { okOnly: true })).toEqual([])
    expect(viewRun(run).toolCalls('get_order', { okOnly: true })).toHaveLength(1)
  })

  test('a wrapped tool step that answers a model call is listed once, from the step', () => {
    const view = viewRun(buildRefundRun())
    expect(view.toolCalls()).toEqual([
      {
        name: 'get_order',
        args: { order_id: 'A17' },
        result: { order_id: 'A17', total: 49, status: 'delivered' },
        isError: false,
        step: 1,
        source: 'tool',
        callId: 'call_1',
        llmStep: 0,
      },
    ])
  })

  test('a wrapped step without a call id pairs with the open model call of the same name and args', () => {
    const run = buildAgentRun([
      { llm: { calls: [getOrder] } },
      { tool: { name: 'get_order', args: { order_id: 'A17' }, result: { total: 49 } } },
      { toolResult: { id: 'call_1', content: '{"total":49}' } },
      { llm: { text: 'Refunded.' } },
    ])
    const calls = viewRun(run).toolCalls()
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({
      source: 'tool',
      step: 1,
      callId: 'call_1',
      llmStep: 0,
      result: { total: 49 },
    })
  })

  test('mixes wrapped and unwrapped calls in step order; okOnly drops failed calls and keeps blocked ones (what the agent tried in a fork)', () => {
    const run = buildAgentRun([
      { llm: { calls: [getOrder, { id: 'call_s', name: 'search_kb', args: { q: 'broken' } }] } },
      { tool: { name: 'get_order', callId: 'call_1', args: { order_id: 'A17' }, result: { total: 49 } } },
      { toolResult: { id: 'call_s', content: 'policy: refunds up to the total' } },
      { llm: { calls: [refund] } },
      {
        tool: {
          name: 'issue_refund',
          callId: 'call_2',
          args: refund.args,
          error: { name: 'HttpError', message: '502 Bad Gateway' },
        },
      },
      { llm: { calls: [{ ...refund, id: 'call_3' }] } },
      { tool: { name: 'issue_refund', callId: 'call_3', args: refund.args, blocked: true } },
      { llm: { calls: [{ ...refund, id: 'call_4' }] } },
      { tool: { name: 'issue_refund', callId: 'call_4', args: refund.args, result: { ok: true } } },
      { llm: { text: 'Refunded $49.' } },
    ])
    const view = viewRun(run)
    expect(view.toolCalls().map((c) => `${c.name}@${c.step}:${c.source}`)).toEqual([
      'search_kb@0:model',
      'get_order@1:tool',
      'issue_refund@3:tool',
      'issue_refund@5:tool',
      'issue_refund@7:tool',
    ])
    const refunds = view.toolCalls('issue_refund')
    expect(refunds.map((c) => c.isError)).toEqual([true, true, false])
    expect(refunds[0]!.error).toEqual({ name: 'HttpError', message: '502 Bad Gateway' })
    expect(refunds[1]!.blocked).toBe(true)
    expect(view.toolCalls('issue_refund', { okOnly: true }).map((c) => c.step)).toEqual([5, 7])
    expect(view.toolCalls('search_kb')[0]!.result).toBe('policy: refunds up to the total')
  })

  test('a model call nobody answered is listed without a result and counts as ok', () => {
    const view = viewRun(buildAgentRun([{ llm: { calls: [refund] } }]))
    const [call] = view.toolCalls('issue_refund', { okOnly: true })
    expect(call).toMatchObject({ step: 0, source: 'model', isError: false })
    expect(call).not.toHaveProperty('result')
  })

  test('a reused call id (Gemini’s synthetic ids) pairs each call with its own result', () => {
    const first = { id: 'get_order_0', name: 'get_order', args: { order_id: 'A17' } }
    const second = { id: 'get_order_0', name: 'get_order', args: { order_id: 'B22' } }
    const run = buildAgentRun([
      { llm: { calls: [first] } },
      { toolResult: { id: 'get_order_0', content: 'A17: 49' } },
      { llm: { calls: [second] } },
      { toolResult: { id: 'get_order_0', content: 'B22: 12' } },
      { llm: { text: 'Both found.' } },
    ])
    expect(
      viewRun(run)
        .toolCalls()
        .map((c) => c.result),
    ).toEqual(['A17: 49', 'B22: 12'])
  })

  test('an older result with a reused id is not taken for a newer call that got none', () => {
    const call = { id: 'get_order_0', name: 'get_order', args: { order_id: 'A17' } }
    const run = buildAgentRun([
      { llm: { calls: [call] } },
      { toolResult: { id: 'get_order_0', content: 'A17: 49' } },
      { llm: { calls: [{ ...call, args: { order_id: 'B22' } }] } },
      { llm: { text: 'Gave up.' } },
    ])
    expect(
      viewRun(run)
        .toolCalls()
        .map((c) => c.result),
    ).toEqual(['A17: 49', undefined])
  })

  test('computes the list once, on first use', () => {
    const run = buildRefundRun()
    const view = viewRun(run)
    // Nothing is read until asked: without the wrapped step, only the model side shows the call.
    run.steps.splice(1, 1)
    expect(view.toolCalls().map((c) => c.source)).toEqual(['model'])
    const fresh = buildRefundRun()
    const asked = viewRun(fresh)
    expect(asked.toolCalls().map((c) => c.source)).toEqual(['tool'])
    fresh.steps.splice(1, 1) // once asked, the answer is kept
    expect(asked.toolCalls().map((c) => c.source)).toEqual(['tool'])
  })
})

describe('finalMessage', () => {
  test('is the text of the last assistant response', () => {
    expect(viewRun(buildRefundRun()).finalMessage).toBe('I have refunded $49 for order A17.')
  })

  test('skips a last response made only of tool calls, and is null when no response had text', () => {
    const run = buildAgentRun([{ llm: { text: 'Let me check.' } }, { llm: { calls: [getOrder] } }])
    expect(viewRun(run).finalMessage).toBe('Let me check.')
    expect(viewRun(buildAgentRun([{ llm: { calls: [getOrder] } }])).finalMessage).toBeNull()
  })
})

describe('toolCalls: ordering corner cases', () => {
  test('a wrapped step logged after the request that carried its result still merges', () => {
    const run = buildAgentRun([
      { llm: { calls: [getOrder] } },
      { toolResult: { id: 'call_1', content: '{"total":49}' } },
      { llm: { text: 'Found it.' } },
      { tool: { name: 'get_order', callId: 'call_1', args: { order_id: 'A17' }, result: { total: 49 } } },
    ])
    expect(
      viewRun(run)
        .toolCalls()
        .map((c) => `${c.source}@${c.step}`),
    ).toEqual(['tool@2'])
  })

  test('a wrapped step with a call id no model response made is listed on its own', () => {
    const run = buildAgentRun([
      { llm: { calls: [getOrder] } },
      { tool: { name: 'get_order', callId: 'call_9', args: { order_id: 'A17' }, result: { total: 49 } } },
    ])
    expect(
      viewRun(run)
        .toolCalls()
        .map((c) => `${c.source}@${c.step}`),
    ).toEqual(['model@0', 'tool@1'])
  })
})

describe('toolCalls: MCP tools', () => {
  // An agent whose tools are an MCP server's: the model asks, the MCP client calls the server (a `tool`
  // step with `mcp`, and no call id: the client never sees the model's), the agent sends the result back.
  const run = asMcpRun(
    buildAgentRun([
      { llm: { calls: [getOrder] } },
      { tool: { name: 'get_order', args: getOrder.args, result: { total: 49 } } },
      { toolResult: { id: 'call_1', content: '{"total":49}' } },
      { llm: { calls: [refund] } },
      {
        tool: {
          name: 'issue_refund',
          args: refund.args,
          error: { name: 'Error', message: 'over the limit' },
        },
      },
      { toolResult: { id: 'call_2', content: 'over the limit', isError: true } },
      { llm: { text: 'Sorry, the refund failed.' } },
    ]),
  )

  test('an MCP tool step is a call, once, with its server; the handshake steps are not calls', () => {
    expect(run.steps.map((s) => (s.type === 'http' ? s.label : s.type))).toEqual([
      'llm',
      ...MCP_HANDSHAKE_LABELS,
      'tool',
      'llm',
      'tool',
      'llm',
    ])
    const calls = viewRun(run).toolCalls()
    expect(calls.map((c) => [c.name, c.step, c.source, c.server, c.callId, c.llmStep])).toEqual([
      ['get_order', 4, 'tool', 'orders-server', 'call_1', 0],
      ['issue_refund', 6, 'tool', 'orders-server', 'call_2', 5],
    ])
    expect(calls[0]!.result).toEqual({ content: [{ type: 'text', text: '{"total":49}' }] })
  })

  test('an isError result is a failed call: okOnly leaves it out', () => {
    const view = viewRun(run)
    expect(view.toolCalls('issue_refund')[0]!.isError).toBe(true)
    expect(view.toolCalls('issue_refund', { okOnly: true })).toEqual([])
    expect(view.toolCalls('get_order', { okOnly: true })).toHaveLength(1)
  })

  test('server filters by the MCP server; wrapped tools have none', () => {
    const view = viewRun(run)
    expect(view.toolCalls(undefined, { server: 'orders-server' }).map((c) => c.name)).toEqual([
      'get_order',
      'issue_refund',
    ])
    expect(view.toolCalls('get_order', { server: 'billing-server' })).toEqual([])
    const wrapped = viewRun(
      buildAgentRun([{ tool: { name: 'get_order', args: {}, result: {} } }]),
    ).toolCalls()
    expect(wrapped[0]).not.toHaveProperty('server')
  })
})
