import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HttpStep, ToolStep } from '../case/schema/step.ts'
import { isFailedToolCall } from '../checks/failed-tool-call.ts'
import { DivergenceError } from '../engine/divergence-error.ts'
import { type Recorded, recordRun, replayFailure, replayRun } from '../engine/internal/test-record-replay.ts'
import type { Session } from '../engine/session.ts'
import { ledgerMark, ledgerSince } from '../interceptor/network-ledger.ts'
import { startInterceptor } from '../interceptor/start-interceptor.ts'
import type { Interceptor } from '../interceptor/types.ts'
import { startLegacyMcpServer } from './internal/test-legacy-mcp-server.ts'
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
    const calls = await refundCalls(client, refunds)
    const sessionId = transport.sessionId
    // The session's end: a DELETE, which a replay answers without the server.
    await transport.terminateSession()
    return { ...calls, sessionId }
  } finally {
    await client.close()
  }
}

/** The tool list, then `get_order` and one `issue_refund` per amount. */
async function refundCalls(client: Client, refunds: number[]) {
  const tools = (await client.listTools()).tools.map((t) => t.name).sort()
  const order = await client.callTool({ name: 'get_order', arguments: { orderId: 'A17' } })
  const results = []
  for (const amount of refunds)
    results.push(await client.callTool({ name: 'issue_refund', arguments: { orderId: 'A17', amount } }))
  return { tools, order, results }
}

/** The steps `agent` records: the handshake, the tool list and the three calls. */
const AGENT_STEPS = [
  'mcp:initialize',
  'mcp:notifications/initialized',
  'mcp:tools/list',
  'tool get_order',
  'tool issue_refund',
  'tool issue_refund',
]

/** What the `get_order` call's step holds. */
const GET_ORDER_STEP = {
  name: 'get_order',
  args: { orderId: 'A17' },
  result: { structuredContent: { orderId: 'A17', status: 'delivered' } },
  error: null,
  mcp: { server: 'orders-server', method: 'tools/call' },
}

/** Each step as `tool <name>`, or its label. */
const labels = (steps: { type: string; name?: string; label?: string }[]) =>
  steps.map((s) => (s.type === 'tool' ? `tool ${s.name}` : s.type === 'http' ? s.label : s.type))

/**
 * Replays `recording` with the server gone and checks that it ran offline: the client got the same
 * answers, nothing was sent and no tool ran again. Returns the replay's finished Session.
 */
async function replaysOffline<T>(
  recording: Recorded<T>,
  replayed: () => Promise<T>,
  server: { refunds: () => number },
): Promise<Session> {
  const refunds = server.refunds()
  const mark = ledgerMark()
  const { output, session } = await replayRun(recording.loaded, replayed)
  await session.finish({ output: null })
  expect(output).toEqual(recording.output)
  expect(ledgerSince(mark)).toEqual({ requests: [], connections: [], refused: [] })
  expect(server.refunds()).toBe(refunds)
  return session
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
    expect(labels(steps)).toEqual(AGENT_STEPS)
    const [read, refused, refunded] = steps.slice(3) as ToolStep[]
    expect(read).toMatchObject(GET_ORDER_STEP)
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

    const session = await replaysOffline(recording, () => agent(server.url), server)
    expect(session.run.steps.map((s) => s.type)).toEqual(steps.map((s) => s.type))
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

/** An agent's MCP use over the older HTTP+SSE transport: the handshake, the tool list, and the calls. */
async function legacyAgent(url: string, refunds: number[] = [500, 20]) {
  const client = new Client({ name: 'refund-agent', version: '1.0.0' })
  await client.connect(new SSEClientTransport(new URL(url)))
  try {
    return await refundCalls(client, refunds)
  } finally {
    await client.close()
  }
}

describe('MCP over the older HTTP+SSE transport', () => {
  it('records the stream and the calls as steps, and replays them with the server stopped', async () => {
    const server = await startLegacyMcpServer()
    const recording = await recordRun(() => legacyAgent(server.url))
    expect(server.refunds()).toBe(2)
    expect(recording.output.tools).toEqual(['add_note', 'count', 'get_order', 'issue_refund'])
    expect(recording.output.results[1]).toEqual({ content: [{ type: 'text', text: 'refunded 20 for A17' }] })
    const steps = recording.loaded.steps
    expect(labels(steps)).toEqual(['mcp:stream', ...AGENT_STEPS])
    // The stream: its endpoint event, which names the URL the POSTs went to.
    const stream = steps[0] as HttpStep
    expect(stream.request).toMatchObject({ method: 'GET', url: server.url })
    expect(stream.response?.chunks?.[0]).toMatchObject({ event: 'endpoint' })
    expect(stream.response?.chunks?.[0]?.data).toMatch(/^\/messages\?sessionId=/)
    const [read, refused] = steps.slice(4) as ToolStep[]
    expect(read).toMatchObject(GET_ORDER_STEP)
    expect(refused).toMatchObject({
      args: { orderId: 'A17', amount: 500 },
      result: { isError: true },
      mcp: { isError: true },
    })
    // The POST's 202, with the event that answered it on the stream.
    expect(read?.mcp?.response?.status).toBe(202)
    expect(read?.mcp?.response?.chunks?.map((c) => c.event)).toEqual(['message'])
    expect(read?.mcp?.request.url).toContain('/messages?sessionId=')
    await server.close()

    const session = await replaysOffline(recording, () => legacyAgent(server.url), server)
    expect(server.streams()).toBe(1)
    expect(labels(session.run.steps)).toEqual(labels(steps))
  })

  it("the server's progress comes with the call's answer; its own messages are kept on the stream step", async () => {
    const server = await startLegacyMcpServer()
    const counting = async (url: string, announce?: () => void) => {
      const client = new Client({ name: 'refund-agent', version: '1.0.0' })
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      )
      const transport = new SSEClientTransport(new URL(url))
      await client.connect(transport)
      // What the server sent the client on the stream, besides answers.
      const notified: unknown[] = []
      const deliver = transport.onmessage!
      transport.onmessage = (message) => {
        if ('method' in message) notified.push([message.method, message.params?.progress ?? null])
        deliver(message)
      }
      try {
        const result = await client.callTool({ name: 'count', arguments: { n: 2 } }, undefined, {
          onprogress: () => {},
        })
        // A message of the server's own, while no request waits.
        if (announce) {
          announce()
          await changed
        }
        return { result, notified }
      } finally {
        await client.close()
      }
    }
    const recording = await recordRun(() => counting(server.url, server.announce))
    const progress = [
      ['notifications/progress', 1],
      ['notifications/progress', 2],
    ]
    expect(recording.output).toEqual({
      result: { content: [{ type: 'text', text: 'counted 2' }] },
      notified: [...progress, ['notifications/tools/list_changed', null]],
    })
    const steps = recording.loaded.steps
    const call = steps.find((s): s is ToolStep => s.type === 'tool')
    const sent = (chunks: { data: string }[] | undefined) =>
      chunks?.map((c) => (JSON.parse(c.data) as { method?: string }).method ?? 'answer')
    expect(sent(call?.mcp?.response?.chunks)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'answer',
    ])
    const stream = steps[0] as HttpStep
    expect(stream.response?.chunks?.map((c) => c.event)).toEqual(['endpoint', 'message'])
    expect(sent(stream.response?.chunks?.slice(1))).toEqual(['notifications/tools/list_changed'])
    await server.close()

    // The progress is sent again with the answer; the server's own message is not.
    const { output, session } = await replayRun(recording.loaded, () => counting(server.url))
    await session.finish({ output: null })
    expect(output).toEqual({ result: recording.output.result, notified: progress })
  })

  it('an SSE stream that is not MCP passes untouched while recording, and is not recorded', async () => {
    const server = await startLegacyMcpServer()
    const events = async () => {
      const res = await fetch(server.eventsUrl, { headers: { accept: 'text/event-stream' } })
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
    }
    const recording = await recordRun(events)
    // A replay holds no stream for it: it is left to the replay rule, which lets loopback through.
    const mark = ledgerMark()
    const { output, session } = await replayRun(recording.loaded, events)
    await session.finish({ output: null })
    expect(output).toEqual(recording.output)
    expect(ledgerSince(mark).requests).toEqual([`GET ${server.eventsUrl}`])
    await server.close()
    expect(recording.output).toEqual({
      status: 200,
      type: 'text/event-stream',
      text: 'event: tick\ndata: {"n":1}\n\nevent: tick\ndata: {"n":2}\n\n',
    })
    expect(recording.loaded.steps).toEqual([])
  })
})

describe.each([
  { transport: 'Streamable HTTP, answered as SSE', start: () => startTestMcpServer({ json: false }), agent },
  { transport: 'Streamable HTTP, answered as JSON', start: () => startTestMcpServer({ json: true }), agent },
  { transport: 'the older HTTP+SSE transport', start: startLegacyMcpServer, agent: legacyAgent },
])('MCP over $transport, replayed', ({ start, agent }) => {
  it('calls made in another order are each answered by their own recording, under the live JSON-RPC id', async () => {
    const server = await start()
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
    const server = await start()
    const recording = await recordRun(() => agent(server.url))
    const connections = server.connections()
    const { output, error } = await replayFailure(recording.loaded, () => agent(server.url, [500, 21]))
    // The agent met crashlab's refusal; the Session keeps the divergence for the end of the run.
    expect(output).toContain('E_DIVERGENCE')
    expect(error).toBeInstanceOf(DivergenceError)
    expect((error as Error).message).toContain('MCP tools/call of tool "issue_refund"')
    expect((error as Error).message).toMatch(/amount.*20.*21/s)
    expect(server.connections()).toBe(connections)
    expect(server.refunds()).toBe(2)
    await server.close()
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
