import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import type { ToolStep } from '../case/schema/step.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { ledgerMark, ledgerSince } from '../interceptor/network-ledger.ts'
import { startInterceptor } from '../interceptor/start-interceptor.ts'
import type { Interceptor } from '../interceptor/types.ts'
import { startLegacyMcpServer } from '../mcp/internal/test-legacy-mcp-server.ts'
import { startTestMcpServer } from '../mcp/internal/test-mcp-server.ts'
import type { StdioTap } from '../mcp/stdio/tap-stdio-servers.ts'
import { tapStdioIntoSessions } from '../mcp/stdio-sessions.ts'
import {
  ALL_MCP_FAULTS,
  ALL_TOOL_FAULTS,
  FAULT_KINDS,
  type Fault,
  faultLabel,
  MCP_FAULT_KINDS,
  parseFault,
  parseFaultList,
} from './faults.ts'
import { crashCells, faultInjection } from './inject.ts'

let interceptor: Interceptor
let stdio: StdioTap
beforeAll(() => {
  interceptor = startInterceptor({ hosts: ['api.openai.com'] })
  stdio = tapStdioIntoSessions()
})
afterAll(async () => {
  stdio.uninstall()
  await interceptor.close()
})

/** A real stdio MCP server (its tools take `id`), which the replay never starts. */
const STDIO_SERVER = fileURLToPath(new URL('../../test/fixtures/mcp/stdio-server.mjs', import.meta.url))

/** What the agent saw of one MCP tool call: its result, or the error the client threw. */
type Seen = { result: unknown } | { error: string }

/**
 * Two MCP tool calls; a call that fails (an error result or a thrown error) is retried once. `key` names
 * the order id argument of the server's tools.
 */
async function agent(transport: Transport, key = 'orderId'): Promise<{ first: Seen[]; second: Seen }> {
  const client = new Client({ name: 'refund-agent', version: '1.0.0' })
  await client.connect(transport)
  const call = async (name: string, args: Record<string, unknown>): Promise<Seen> => {
    try {
      return { result: await client.callTool({ name, arguments: args }) }
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } }
      return { error: `${e.name}: ${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}` }
    }
  }
  try {
    const seen = await call('get_order', { [key]: 'A17' })
    const first = [seen]
    const failed = 'error' in seen || (seen.result as { isError?: boolean }).isError === true
    if (failed) first.push(await call('get_order', { [key]: 'A17' }))
    const second = await call('issue_refund', { [key]: 'A17', amount: 20 })
    return { first, second }
  } finally {
    await client.close()
  }
}

describe.each([
  {
    transport: 'Streamable HTTP',
    start: () => startTestMcpServer({ json: false }),
    connect: (url: string) => new StreamableHTTPClientTransport(new URL(url)),
  },
  {
    transport: 'the older HTTP+SSE transport',
    start: startLegacyMcpServer,
    connect: (url: string) => new SSEClientTransport(new URL(url)),
  },
  {
    transport: 'stdio',
    start: async () => ({ url: '', close: async () => {} }),
    connect: () => new StdioClientTransport({ command: process.execPath, args: [STDIO_SERVER] }),
    key: 'id',
  },
])('MCP tool faults over $transport', ({ start, connect, key }) => {
  let run: Run
  let url: string
  let firstCall: number
  let recordedFirst: Seen
  let recordedSecond: Seen
  beforeAll(async () => {
    const server = await start()
    const recording = await recordRun(() => agent(connect(server.url), key))
    await server.close()
    run = recording.loaded
    url = server.url
    firstCall = run.steps.findIndex((s) => s.type === 'tool')
    recordedFirst = recording.output.first[0]!
    recordedSecond = recording.output.second
    expect(recording.output.first).toHaveLength(1)
    expect(run.steps.filter((s) => s.type === 'tool' && s.mcp).map((s) => (s as ToolStep).name)).toEqual([
      'get_order',
      'issue_refund',
    ])
  })

  it.each([
    {
      fault: { kind: 'mcp_error_result' } as Fault,
      sees: (seen: Seen) =>
        expect(seen).toEqual({
          result: {
            isError: true,
            content: [
              { type: 'text', text: 'tool "get_order" failed (fault injected by a crashlab crash test)' },
            ],
          },
        }),
    },
    {
      fault: { kind: 'mcp_error_result', message: 'orders-db is down' } as Fault,
      sees: (seen: Seen) =>
        expect(seen).toEqual({
          result: { isError: true, content: [{ type: 'text', text: 'orders-db is down' }] },
        }),
    },
    {
      fault: { kind: 'mcp_transport_error' } as Fault,
      sees: (seen: Seen) =>
        expect(seen).toEqual({ error: expect.stringMatching(/fetch failed.*ECONNRESET|Connection closed/) }),
    },
    {
      fault: { kind: 'mcp_timeout' } as Fault,
      sees: (seen: Seen) =>
        expect(seen).toEqual({ error: expect.stringMatching(/TimeoutError.*timeout|Request timed out/) }),
    },
  ])(
    '$fault.kind at the first call: the client sees it, and its retry is served from the recording',
    async ({ fault, sees }) => {
      const mark = ledgerMark()
      const t0 = performance.now()
      const { output, session } = await replayRun(run, () => agent(connect(url), key), {
        inject: faultInjection(fault, firstCall),
      })
      await session.finish({ output: null })
      // Simulated at once: no wait for a timeout.
      expect(performance.now() - t0).toBeLessThan(5000)
      expect(output.first).toHaveLength(2)
      sees(output.first[0]!)
      expect(output.first[1]).toEqual(recordedFirst)
      expect(output.second).toEqual(recordedSecond)
      // The server is stopped and nothing went out.
      expect(ledgerSince(mark)).toEqual({ requests: [], connections: [], refused: [] })
      expect(session.run.links.crashOf).toEqual({ run: run.id, step: firstCall, fault })
      const injectedStep = session.run.steps[session.injectedAt!] as ToolStep
      expect(injectedStep).toMatchObject({ type: 'tool', name: 'get_order', mcp: { method: 'tools/call' } })
      if (fault.kind === 'mcp_error_result') expect(injectedStep.mcp?.isError).toBe(true)
      else expect(injectedStep.error?.message).toMatch(/fetch failed|timeout|timed out|Connection closed/)
    },
  )

  it('crashCells puts MCP faults only at MCP tool steps, and tool() faults never there', () => {
    const mcpSteps = run.steps.filter((s) => s.type === 'tool' && s.mcp).map((s) => s.index)
    const cells = crashCells(run, [...ALL_MCP_FAULTS, ...ALL_TOOL_FAULTS])
    expect(cells.map((c) => c.fault.kind)).toEqual(mcpSteps.flatMap(() => [...MCP_FAULT_KINDS]))
    expect([...new Set(cells.map((c) => c.step))]).toEqual(mcpSteps)
    // A tool() step takes tool() faults and no MCP fault.
    const toolStep = { ...run.steps[mcpSteps[0]!]!, mcp: undefined } as ToolStep
    const plain = { ...run, steps: [{ ...toolStep, index: 0 }] }
    expect(crashCells(plain, [...ALL_MCP_FAULTS, ...ALL_TOOL_FAULTS]).map((c) => c.fault)).toEqual([
      ...ALL_TOOL_FAULTS,
    ])
  })

  it('each MCP fault kind parses back from its list item and has its label', () => {
    for (const fault of ALL_MCP_FAULTS) {
      expect(FAULT_KINDS[fault.kind].target).toBe('mcp')
      expect(parseFault(fault)).toEqual(fault)
      expect(parseFaultList(fault.kind)).toEqual([fault])
    }
    expect(ALL_MCP_FAULTS.map(faultLabel)).toEqual(['MCP error result', 'MCP transport error', 'MCP timeout'])
    expect(parseFaultList('mcp_error_result:orders-db is down')).toEqual([
      { kind: 'mcp_error_result', message: 'orders-db is down' },
    ])
    expect(faultLabel({ kind: 'mcp_error_result', message: 'down' })).toBe('MCP error result "down"')
    expect(() => parseFaultList('mcp_timeout:3')).toThrow(/takes no ":" argument/)
  })
})
