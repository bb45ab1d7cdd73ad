import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HttpStep, ToolStep } from '../case/schema/step.ts'
import { isFailedToolCall } from '../checks/failed-tool-call.ts'
import { DivergenceError } from '../engine/divergence-error.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { ledgerMark, ledgerSince } from '../interceptor/network-ledger.ts'
import { startInterceptor } from '../interceptor/start-interceptor.ts'
import type { Interceptor } from '../interceptor/types.ts'
import { startTestMcpServer } from './internal/test-mcp-server.ts'

let interceptor: Interceptor
beforeAll(() => {
  // The MCP server's host is not listed: MCP is recognised by its body, on any host.
  interceptor = startInterceptor({ hosts: ['api.openai.com'] })
})
afterAll(async () => {
  await interceptor.close()
})

/** An agent's MCP use: the handshake, the tool list, and the calls `refund` asks for. */
async function agent(url: string, refunds: number[] = [500, 20]) {
  const client = new Client({ name: 'refund-agent', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url))
  await client.connect(transport)
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name).sort()
    const order = await client.callTool({ name: 'get_order', arguments: { orderId: 'A17' } })
    const results = []
    for (const amount of refunds)
      results.push(await client.callTool({ name: 'issue_refund', arguments: { orderId: 'A17', amount } }))
    const sessionId = transport.sessionId
    // The session's end: a DELETE, which a replay answers without the server.
    await transport.terminateSession()
    return { tools, order, results, sessionId }
  } finally {
    await client.close()
  }
}

describe.each([
  { framing: 'SSE', json: false },
  { framing: 'JSON', json: true },
])('MCP over Streamable HTTP, answered as $framing', ({ json }) => {
  it('records the calls as steps and replays them offline, with the same answers', async () => {
    const server = await startTestMcpServer({ json })
    const recording = await recordRun(() => agent(server.url))
    expect(server.refunds()).toBe(2)
    const steps = recording.loaded.steps
    expect(
      steps.map((s) => (s.type === 'tool' ? `tool ${s.name}` : s.type === 'http' ? s.label : s.type)),
    ).toEqual([
      'mcp:initialize',
      'mcp:notifications/initialized',
      'mcp:tools/list',
      'tool get_order',
      'tool issue_refund',
      'tool issue_refund',
    ])
    const [read, refused, refunded] = steps.slice(3) as ToolStep[]
    expect(read).toMatchObject({
      name: 'get_order',
      args: { orderId: 'A17' },
      result: { structuredContent: { orderId: 'A17', status: 'delivered' } },
      error: null,
      mcp: { server: 'orders-server', method: 'tools/call' },
    })
    expect(read?.mcp?.isError).toBeUndefined()
    expect(refused).toMatchObject({
      args: { orderId: 'A17', amount: 500 },
      result: { isError: true, content: [{ type: 'text', text: 'refund of 500 is over the limit' }] },
      mcp: { server: 'orders-server', isError: true },
    })
    // MCP's `isError` result is a failed tool call for the checks and the diagnosis.
    expect(isFailedToolCall(refused!)).toBe(true)
    expect(isFailedToolCall(read!)).toBe(false)
    expect(refunded?.result).toEqual({ content: [{ type: 'text', text: 'refunded 20 for A17' }] })
    // The framing is kept for the replay: an SSE answer as its events, a JSON answer as its body.
    const response = read?.mcp?.response
    expect(response?.headers['content-type']).toContain(json ? 'application/json' : 'text/event-stream')
    expect(json ? response?.body : response?.chunks?.length).toBeTruthy()
    expect(response?.headers['mcp-session-id']).toBe(recording.output.sessionId)
    expect((steps[1] as HttpStep).response?.status).toBe(202)
    await server.close()

    // Replay with the server gone: nothing is sent, no tool runs, the client gets the same answers.
    const mark = ledgerMark()
    const { output, session } = await replayRun(recording.loaded, () => agent(server.url))
    await session.finish({ output: null })
    expect(output).toEqual(recording.output)
    expect(ledgerSince(mark)).toEqual({ requests: [], connections: [], refused: [] })
    expect(server.refunds()).toBe(2)
    expect(session.run.steps.map((s) => s.type)).toEqual(steps.map((s) => s.type))
  })

  it('calls made in another order are each answered by their own recording, under the live JSON-RPC id', async () => {
    const server = await startTestMcpServer({ json })
    const recording = await recordRun(() => agent(server.url, [500, 20]))
    await server.close()
    // The ids the client now gives the two calls are the other way round: an answer that kept its
    // recorded id would resolve no pending call (or the wrong one).
    const { output, session } = await replayRun(recording.loaded, () => agent(server.url, [20, 500]))
    await session.finish({ output: null })
    expect(output.results).toEqual([...recording.output.results].reverse())
    expect(server.refunds()).toBe(2)
  })

  it('a replay whose agent calls a tool with other arguments diverges, naming the tool', async () => {
    const server = await startTestMcpServer({ json })
    const recording = await recordRun(() => agent(server.url))
    const connections = server.connections()
    const { output, session } = await replayRun(recording.loaded, () =>
      agent(server.url, [500, 21]).then(
        () => 'no error',
        (error: unknown) => String(error),
      ),
    )
    // The agent met crashlab's refusal; the Session keeps the divergence for the end of the run.
    expect(output).toContain('E_DIVERGENCE')
    const error = await session.finish({ output }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DivergenceError)
    expect((error as Error).message).toContain('MCP tools/call of tool "issue_refund"')
    expect((error as Error).message).toMatch(/amount.*20.*21/s)
    expect(server.connections()).toBe(connections)
    expect(server.refunds()).toBe(2)
    await server.close()
  })
})

describe('MCP steps and redaction', () => {
  it('an MCP call with a secret in its arguments is written redacted, and its replay still matches', async () => {
    const secret = 'q7Zr4xW9mK2pL8vN3bT6'
    const call = async (url: string) => {
      const client = new Client({ name: 'refund-agent', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      try {
        return await client.callTool({ name: 'get_order', arguments: { orderId: 'A17', apiKey: secret } })
      } finally {
        await client.close()
      }
    }
    const server = await startTestMcpServer({ json: false })
    const recording = await recordRun(() => call(server.url))
    await server.close()
    expect(recording.text).not.toContain(secret)
    const tool = recording.loaded.steps.find((s): s is ToolStep => s.type === 'tool')
    expect(tool?.args).toEqual({ orderId: 'A17', apiKey: '[REDACTED:sensitive-key]' })
    const { output, session } = await replayRun(recording.loaded, () => call(server.url))
    await session.finish({ output: null })
    expect(output).toEqual(recording.output)
  })
})

describe('a live call on a session whose handshake was replayed', () => {
  // A client connected in beforeAll gets its handshake from the file's MCP cassette (a recorded session
  // id no server issued); a test recorded after it sends its calls to the live server.
  it.each([
    { framing: 'SSE', json: false },
    { framing: 'JSON', json: true },
  ])(
    'opens a live session with the recorded initialize and sends the call on it ($framing)',
    async ({ json }) => {
      const first = await startTestMcpServer({ json })
      const handshake = await recordRun(async () => {
        const client = new Client({ name: 'refund-agent', version: '1.0.0' })
        await client.connect(new StreamableHTTPClientTransport(new URL(first.url)))
        await client.close()
      })
      await first.close()

      const server = await startTestMcpServer({ json })
      const client = new Client({ name: 'refund-agent', version: '1.0.0' })
      const transport = new StreamableHTTPClientTransport(new URL(server.url))
      const { session } = await replayRun(handshake.loaded, () => client.connect(transport), {
        allowUnused: true,
      })
      await session.finish({ output: null })
      const replayedId = transport.sessionId
      expect(replayedId).toBe(
        handshake.run.steps[0]?.type === 'http' && handshake.run.steps[0].response?.headers['mcp-session-id'],
      )
      expect(server.connections()).toBe(0)
      // The server's stream on that session, before any live session: answered as a replay answers it.
      const stream = await recordRun(() =>
        fetch(server.url, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': replayedId as string },
        }),
      )
      expect(stream.output.status).toBe(405)
      expect(server.connections()).toBe(0)

      const live = await recordRun(async () => {
        const order = await client.callTool({ name: 'get_order', arguments: { orderId: 'A17' } })
        const again = await client.callTool({ name: 'get_order', arguments: { orderId: 'A18' } })
        return [order, again]
      })
      expect(live.output.map((r) => r.structuredContent)).toEqual([
        { orderId: 'A17', status: 'delivered' },
        { orderId: 'A18', status: 'delivered' },
      ])
      expect(server.runs('get_order')).toBe(2)
      // crashlab's own handshake with the live server is not a step of the run; the client keeps its id.
      expect(live.loaded.steps.map((s) => s.type)).toEqual(['tool', 'tool'])
      expect(transport.sessionId).toBe(replayedId)
      // The session's end goes to the live session (the server would refuse the replayed id).
      await recordRun(() => transport.terminateSession())
      await client.close()
      await server.close()
    },
  )
})
