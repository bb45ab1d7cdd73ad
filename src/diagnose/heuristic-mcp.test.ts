import { describe, expect, it } from 'vitest'
import { asMcpRun } from '../case/internal/test-mcp-run.ts'
import type { Run } from '../case/schema/run.ts'
import { heuristicDiagnosis } from './heuristic.ts'
import { type ChatTurn, chatRun } from './internal/test-chat-run.ts'
import { profiles } from './internal/tool-profile.ts'
import { compactTrace } from './prompt.ts'

// The heuristic on agents whose tools are an MCP server's: the same diagnosis as with wrapped tools, at
// the MCP tool step; the MCP messages around it (handshake, tools/list) are neither failures nor culprits.

const USER = 'Refund my order A17, it arrived broken'
const FAILED = [{ name: 'refundDone', passed: false, message: 'no refund was issued' }]
const PASSED = [{ name: 'refundDone', passed: true, message: '' }]
const PAGE = '<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>'
const CLAIMED = 'All done: everything is taken care of.'
const HONEST = 'I could not look up your order: the order service is unavailable. Please try again later.'

const wrapped = (checks: typeof FAILED, ...turns: ChatTurn[]): Run => chatRun({ user: USER, turns, checks })
/** Where the handshake went in: the wrapped run's steps from the first tool step on moved by three. */
const moved = (step: number | null) => (step === null || step < 1 ? step : step + 3)

/** The MCP run of an agent that looked the order up and said it refunded it. */
const lookedUp = (checks: typeof FAILED): Run =>
  asMcpRun(
    wrapped(
      checks,
      { call: { name: 'get_order', args: { order_id: 'A17' }, result: { total: 49 } } },
      { text: 'Refunded.' },
    ),
  )

describe('heuristicDiagnosis on MCP tool steps', () => {
  it.each([
    ['an HTML page, then a claim of success', { result: PAGE }, CLAIMED, 'TOOL_ERROR_MISHANDLED'],
    ['an HTML page, told to the user', { result: PAGE }, HONEST, 'EXTERNAL_FAILURE'],
    [
      'an isError result, then a claim of success',
      { error: 'order service down' },
      CLAIMED,
      'TOOL_ERROR_MISHANDLED',
    ],
    ['an isError result, told to the user', { error: 'order service down' }, HONEST, 'EXTERNAL_FAILURE'],
  ])('%s: as for the wrapped tool, at the MCP tool step', (_, outcome, reply, label) => {
    const plain = wrapped(
      FAILED,
      { call: { name: 'get_order', args: { order_id: 'A17' }, ...outcome } },
      { text: reply },
    )
    const mcp = asMcpRun(plain)
    const d = heuristicDiagnosis(mcp)
    expect(d).toMatchObject({ label, failingStep: 4 })
    expect(mcp.steps[4]).toMatchObject({ type: 'tool', name: 'get_order', mcp: { server: 'orders-server' } })
    expect(heuristicDiagnosis(plain)).toMatchObject({ label, failingStep: 1 })
    expect(d.evidence.map((e) => e.step)).toEqual(
      heuristicDiagnosis(plain).evidence.map((e) => moved(e.step)),
    )
  })

  it('a run that passed: NO_FAILURE, the MCP messages are not failures', () => {
    const mcp = lookedUp(PASSED)
    expect(mcp.steps.some((s) => s.type === 'http')).toBe(true)
    expect(heuristicDiagnosis(mcp)).toMatchObject({ label: 'NO_FAILURE', failingStep: null })
  })

  it('a failed check no rule explains: UNKNOWN with no failing step, not an MCP message', () => {
    const mcp = lookedUp(FAILED)
    const d = heuristicDiagnosis(mcp)
    expect(d.failingStep === null || mcp.steps[d.failingStep]?.type !== 'http').toBe(true)
  })

  it('the diagnoser’s trace names an MCP tool’s server and an MCP message’s method', () => {
    const trace = compactTrace(
      asMcpRun(wrapped(FAILED, { call: { name: 'get_order', args: {}, result: {} } })),
    )
    expect(trace).toContain('[step 1] http mcp:initialize\n')
    expect(trace).toContain('[step 4] tool get_order (mcp: orders-server)\n')
  })

  it('an MCP tool step declares no side effects: its name says what it does, as for a model-only call', () => {
    const tools = ['get_order', 'cancel_order'].map((name) => ({ name, parameters: { type: 'object' } }))
    const mcp = lookedUp(FAILED)
    expect(mcp.steps.find((s) => s.type === 'tool')).toMatchObject({ name: 'get_order', sideEffects: true })
    expect(profiles(tools, mcp).map((p) => [p.name, p.kind])).toEqual([
      ['get_order', 'read'],
      ['cancel_order', 'write'],
    ])
  })
})
