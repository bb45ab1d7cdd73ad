import { randomUUID } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolStep } from '../case/schema/step.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import type { McpOptions } from '../engine/types.ts'
import { startAgentRun } from '../harness/start-agent-run.ts'
import { startInterceptor } from '../interceptor/start-interceptor.ts'
import type { Interceptor } from '../interceptor/types.ts'
import { startTestMcpServer, type TestMcpServer } from './internal/test-mcp-server.ts'

// Side effects of MCP tools from their servers' annotations (get_order `readOnlyHint: true`,
// issue_refund `destructiveHint: true`, add_note none), the config's overrides, and a fork that never
// sends a side-effect call its parent run does not hold: the real SDK server and client, on loopback.

let interceptor: Interceptor
beforeAll(() => {
  interceptor = startInterceptor({ hosts: ['api.openai.com'] })
})
afterAll(async () => {
  await interceptor.close()
})

interface Call {
  name: string
  arguments: Record<string, unknown>
}

const getOrder = (orderId = 'A17'): Call => ({ name: 'get_order', arguments: { orderId } })
const refund = (amount: number): Call => ({ name: 'issue_refund', arguments: { orderId: 'A17', amount } })
const note = (text: string): Call => ({ name: 'add_note', arguments: { orderId: 'A17', text } })

/** An agent's MCP use: the handshake, the tool list unless `list: false`, then `calls` in order. */
async function agent(url: string, calls: Call[], list = true) {
  const client = new Client({ name: 'refund-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  try {
    if (list) await client.listTools()
    const results = []
    for (const call of calls) results.push(await client.callTool(call))
    return results
  } finally {
    await client.close()
  }
}

const toolSteps = (steps: readonly { type: string }[]) =>
  steps.filter((s): s is ToolStep => s.type === 'tool')
const decided = (step: ToolStep) => [step.name, step.sideEffects, step.mcp?.sideEffectsFrom]

async function recordTools(
  server: TestMcpServer,
  calls: Call[],
  options: { list?: boolean; mcp?: McpOptions } = {},
) {
  const recording = await recordRun(() => agent(server.url, calls, options.list), { mcp: options.mcp })
  return toolSteps(recording.loaded.steps).map(decided)
}

describe('MCP tool steps: side effects', () => {
  it('follow the annotations of the tools/list answer: only a readOnlyHint tool is free of them', async () => {
    const server = await startTestMcpServer({ json: false })
    expect(await recordTools(server, [getOrder(), refund(20), note('late')])).toEqual([
      ['get_order', false, 'annotations'],
      ['issue_refund', true, 'annotations'],
      ['add_note', true, 'annotations'],
    ])
    await server.close()
  })

  it('are side effects when no listing was seen, and use one another Session saw for that server', async () => {
    // A server name of its own: annotations learned by earlier tests of this file play no part.
    const server = await startTestMcpServer({ json: true, name: `catalog-${randomUUID()}` })
    expect(await recordTools(server, [getOrder()], { list: false })).toEqual([
      ['get_order', true, 'unlisted'],
    ])
    await recordTools(server, [], { list: true })
    expect(await recordTools(server, [getOrder(), note('x')], { list: false })).toEqual([
      ['get_order', false, 'annotations'],
      ['add_note', true, 'annotations'],
    ])
    await server.close()
  })

  it("are the config's when it names the server or the tool", async () => {
    const server = await startTestMcpServer({ json: false })
    const calls = [getOrder(), refund(20), note('late')]
    const byTool = { sideEffects: { 'orders-server': { get_order: true, add_note: false } } }
    expect(await recordTools(server, calls, { mcp: byTool })).toEqual([
      ['get_order', true, 'config'],
      ['issue_refund', true, 'annotations'],
      ['add_note', false, 'config'],
    ])
    expect(await recordTools(server, calls, { mcp: { sideEffects: { 'orders-server': false } } })).toEqual([
      ['get_order', false, 'config'],
      ['issue_refund', false, 'config'],
      ['add_note', false, 'config'],
    ])
    // Another server's settings do not apply.
    expect(await recordTools(server, [note('x')], { mcp: { sideEffects: { other: false } } })).toEqual([
      ['add_note', true, 'annotations'],
    ])
    await server.close()
  })

  it("reach an agent run's Session from the config file's `mcp` key", async () => {
    const mcp = { sideEffects: { 'orders-server': { add_note: false } } }
    const agentRun = await startAgentRun({
      session: { mode: 'record' },
      loadedConfig: { mcp },
      runtimeChecks: false,
      finishRule: 'record',
    })
    expect(agentRun.session.mcp).toEqual(mcp)
    await agentRun.finish({ output: null })
  })
})

describe('a fork past its fork step', () => {
  /** Steps: 0 initialize, 1 initialized, 2 tools/list, 3 get_order, 4 issue_refund 20, 5 add_note. */
  const parentCalls = [getOrder(), refund(20), note('late')]

  it('blocks a side-effect call its parent run does not hold, sends a read-only one, and serves an identical one', async () => {
    const server = await startTestMcpServer({ json: false })
    const recording = await recordRun(() => agent(server.url, parentCalls))
    const { output, session } = await replayRun(
      recording.loaded,
      () => agent(server.url, [getOrder('B2'), refund(30), refund(20), note('changed')]),
      { forkAt: 3 },
    )
    await session.finish({ output: null })
    // get_order ran live once more; the destructive and the unannotated tool never ran in the fork.
    expect([server.runs('get_order'), server.runs('issue_refund'), server.runs('add_note')]).toEqual([
      2, 1, 1,
    ])
    const [read, blockedRefund, sameRefund, blockedNote] = output
    expect(read?.structuredContent).toEqual({ orderId: 'B2', status: 'delivered' })
    // The client gets a failed tool call that names the block, as a tool's own failure reaches the model.
    expect(blockedRefund?.isError).toBe(true)
    expect(JSON.stringify(blockedRefund?.content)).toMatch(/E_FORK_BLOCKED.*issue_refund/)
    expect(blockedNote?.isError).toBe(true)
    expect(sameRefund).toEqual(recording.output[1])
    const steps = toolSteps(session.run.steps)
    expect(steps.map((s) => [s.name, s.sideEffects, s.blocked ?? false, s.error?.code ?? null])).toEqual([
      ['get_order', false, false, null],
      ['issue_refund', true, true, 'E_FORK_BLOCKED'],
      ['issue_refund', true, false, null],
      ['add_note', true, true, 'E_FORK_BLOCKED'],
    ])
    expect(steps[1]?.args).toEqual({ orderId: 'A17', amount: 30 })

    // The fork's own run replays as it ran: the blocked answer again, still nothing sent.
    const again = await replayRun(session.run, () =>
      agent(server.url, [getOrder('B2'), refund(30), refund(20), note('changed')]),
    )
    await again.session.finish({ output: null })
    expect(again.output).toEqual(output)
    expect(server.runs('issue_refund')).toBe(1)
    await server.close()
  })

  it("takes a tool's side effects from its parent run when no Session of the process saw its listing", async () => {
    const name = `catalog-${randomUUID()}`
    const server = await startTestMcpServer({ json: true, name })
    await recordTools(server, [], { list: true })
    // Recorded without a listing of its own: get_order is read-only by the other Session's listing.
    const recording = await recordRun(() => agent(server.url, [getOrder(), note('late')], false))
    expect(toolSteps(recording.loaded.steps).map(decided)).toEqual([
      ['get_order', false, 'annotations'],
      ['add_note', true, 'annotations'],
    ])
    // The same run from a server of a name no Session listed (as in a process that forks only this run).
    const renamed = JSON.parse(JSON.stringify(recording.loaded).replaceAll(name, `${name}-alone`))
    const { output, session } = await replayRun(
      renamed,
      () => agent(server.url, [getOrder('B2'), note('changed')], false),
      { forkAt: 2 },
    )
    await session.finish({ output: null })
    expect(output.map((r) => r.isError ?? false)).toEqual([false, true])
    expect([server.runs('get_order'), server.runs('add_note')]).toEqual([2, 1])
    await server.close()
  })

  it('sends a call of a tool the config marks side-effect free', async () => {
    const server = await startTestMcpServer({ json: true })
    const recording = await recordRun(() => agent(server.url, parentCalls))
    const { output, session } = await replayRun(
      recording.loaded,
      () => agent(server.url, [note('changed')]),
      {
        forkAt: 3,
        mcp: { sideEffects: { 'orders-server': { add_note: false } } },
      },
    )
    await session.finish({ output: null })
    expect(output[0]?.isError).toBeUndefined()
    expect(server.runs('add_note')).toBe(2)
    expect(toolSteps(session.run.steps).map(decided)).toEqual([['add_note', false, 'config']])
    await server.close()
  })
})
