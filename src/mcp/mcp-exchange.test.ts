import { describe, expect, it } from 'vitest'
import type { HttpStep, ToolStep } from '../case/schema/step.ts'
import { currentSession } from '../engine/context.ts'
import { DivergenceError } from '../engine/divergence-error.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { REFUSAL_HEADER } from '../engine/refusal-response.ts'
import { mcpExchange } from './mcp-exchange.ts'
import { readMcpRequest } from './mcp-message.ts'

// The exchange itself, with a scripted upstream: what the real server test (mcp-http.test.ts) cannot
// make the SDK send or answer.

const URL_ = 'http://mcp.example.test/mcp'
const rpc = (message: Record<string, unknown>) => ({ jsonrpc: '2.0', ...message })

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(URL_, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  })
}

/** Sends `body` through the current Session's MCP exchange, answered by `answer` when it goes upstream. */
async function send(body: unknown, answer: (request: Request) => Response | Promise<Response>) {
  const request = post(body, { 'mcp-session-id': 's1' })
  const messages = await readMcpRequest(request)
  if (!messages) throw new Error('not MCP')
  return mcpExchange(currentSession()!, request, messages, async (r) => answer(r))
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
const sse = (...events: unknown[]) =>
  new Response(events.map((e) => `event: message\ndata: ${JSON.stringify(e)}\n\n`).join(''), {
    headers: { 'content-type': 'text/event-stream' },
  })
const never = (): Response => {
  throw new Error('a replay sent a request upstream')
}

describe('mcpExchange', () => {
  it('answers a session GET with 405 and a DELETE with 200 at replay, without the server', async () => {
    const { loaded } = await recordRun(async () => null)
    const { output } = await replayRun(loaded, async () => {
      const session = currentSession()!
      const headers = { 'mcp-session-id': 's1' }
      const get = await mcpExchange(session, new Request(URL_, { headers }), undefined, async () => never())
      const del = await mcpExchange(
        session,
        new Request(URL_, { method: 'DELETE', headers }),
        undefined,
        async () => never(),
      )
      return [get.status, del.status]
    })
    expect(output).toEqual([405, 200])
  })

  it('accepts a notification the recording does not hold (202), and serves the recorded ones', async () => {
    const rec = await recordRun(() =>
      send(rpc({ method: 'notifications/initialized' }), () => new Response(null, { status: 202 })).then(
        (r) => r.status,
      ),
    )
    expect(rec.loaded.steps.map((s) => (s as HttpStep).label)).toEqual(['mcp:notifications/initialized'])
    const { output, session } = await replayRun(rec.loaded, async () => {
      const a = await send(rpc({ method: 'notifications/initialized' }), never)
      const b = await send(rpc({ method: 'notifications/cancelled', params: { requestId: 3 } }), never)
      return [a.status, b.status]
    })
    await session.finish({ output: null })
    expect(output).toEqual([202, 202])
    expect(session.run.steps.map((s) => (s as HttpStep).label)).toEqual([
      'mcp:notifications/initialized',
      'mcp:notifications/cancelled',
    ])
  })

  it('replays a batch with the live ids, paired by position', async () => {
    const batch = (a: number, b: number) => [
      rpc({ id: a, method: 'tools/list' }),
      rpc({ id: b, method: 'ping' }),
    ]
    const rec = await recordRun(() =>
      send(batch(1, 2), () => json([rpc({ id: 1, result: { tools: [] } }), rpc({ id: 2, result: {} })])).then(
        (r) => r.json(),
      ),
    )
    expect((rec.loaded.steps[0] as HttpStep).label).toBe('mcp:batch')
    const { output } = await replayRun(rec.loaded, () => send(batch(7, 8), never).then((r) => r.json()))
    expect(output).toEqual([rpc({ id: 7, result: { tools: [] } }), rpc({ id: 8, result: {} })])
  })

  it('readdresses an SSE answer: the result to the live id, a progress event to the live token', async () => {
    const call = (id: number) =>
      rpc({ id, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: id } } })
    const rec = await recordRun(() =>
      send(call(1), () =>
        sse(
          rpc({ method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 2 } }),
          rpc({ id: 1, result: { content: [{ type: 'text', text: 'done' }] } }),
        ),
      ).then((r) => r.text()),
    )
    const step = rec.loaded.steps[0] as ToolStep
    expect(step.mcp?.response?.chunks).toHaveLength(2)
    // The progress token is `_meta`, which plays no part in the match: id 5 with token 5 matches.
    const { output } = await replayRun(rec.loaded, () => send(call(5), never).then((r) => r.text()))
    expect(output).toContain('"progressToken":5')
    expect(output).toContain('"id":5')
    expect(output).not.toContain('"id":1')
    expect(output).toMatch(/^event: message\ndata: /)
  })

  it('records a JSON-RPC error answer and a failed connection as the tool step’s error', async () => {
    const call = (name: string) => rpc({ id: 1, method: 'tools/call', params: { name, arguments: { a: 1 } } })
    const rec = await recordRun(async () => {
      await send(call('missing'), () =>
        json(rpc({ id: 1, error: { code: -32602, message: 'Tool missing not found' } })),
      )
      return send(call('down'), () => {
        throw new TypeError('fetch failed')
      }).catch((e: unknown) => String(e))
    })
    expect(rec.output).toBe('TypeError: fetch failed')
    const [missing, down] = rec.loaded.steps as ToolStep[]
    expect(missing).toMatchObject({
      name: 'missing',
      args: { a: 1 },
      error: { name: 'McpError', message: 'Tool missing not found', code: '-32602' },
    })
    expect(missing?.result).toBeUndefined()
    expect(down).toMatchObject({ name: 'down', error: { message: 'fetch failed' }, mcp: { response: null } })
    // At replay the failed connection fails again, without the network.
    const { output, session } = await replayRun(rec.loaded, async () => {
      const answer = await send(call('missing'), never).then((r) => r.json())
      const failed = await send(call('down'), never).catch((e: unknown) => String(e))
      return { answer, failed }
    })
    await session.finish({ output: null })
    expect(output.answer).toEqual(rpc({ id: 1, error: { code: -32602, message: 'Tool missing not found' } }))
    expect(output.failed).toBe('TypeError: fetch failed')
  })

  it('refuses an MCP request the recording does not hold, naming its method', async () => {
    const { loaded } = await recordRun(async () => null)
    const { output, session } = await replayRun(loaded, () =>
      send(rpc({ id: 3, method: 'resources/read', params: { uri: 'file:///orders.csv' } }), never),
    )
    expect(output.status).toBe(400)
    expect(output.headers.get(REFUSAL_HEADER)).toBe('E_DIVERGENCE')
    const error = session.errors[0]
    expect(error).toBeInstanceOf(DivergenceError)
    expect(error?.message).toContain('MCP resources/read')
  })

  it('fails a replay that leaves a recorded tools/call unused, as for a tool() call', async () => {
    const call = (id: number, name: string) =>
      rpc({ id, method: 'tools/call', params: { name, arguments: {} } })
    const answer = (r: Request) =>
      r.json().then((m) => json(rpc({ id: (m as { id: number }).id, result: { content: [] } })))
    const rec = await recordRun(async () => {
      await send(call(1, 'get_order'), answer)
      await send(call(2, 'issue_refund'), answer)
    })
    const { session } = await replayRun(rec.loaded, () => send(call(1, 'get_order'), never))
    const error = await session.finish({ output: null }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    )
    expect(error?.code).toBe('E_REPLAY_UNUSED')
    expect(error?.message).toContain('tool issue_refund')
  })

  it('blocks, in a fork past its fork step, a batch that holds a side-effect call: every request gets an error', async () => {
    const list = rpc({ id: 1, method: 'tools/list' })
    const tools = {
      tools: [{ name: 'get_order', annotations: { readOnlyHint: true } }, { name: 'issue_refund' }],
    }
    const rec = await recordRun(() => send(list, () => json(rpc({ id: 1, result: tools }))))
    const batch = [
      rpc({ id: 2, method: 'tools/call', params: { name: 'get_order', arguments: {} } }),
      rpc({ id: 3, method: 'tools/call', params: { name: 'issue_refund', arguments: { amount: 5 } } }),
    ]
    const { output, session } = await replayRun(
      rec.loaded,
      async () => {
        await send(list, never)
        return send(batch, never).then((r) => r.json())
      },
      { forkAt: 1 },
    )
    await session.finish({ output: null })
    expect(output).toEqual([
      rpc({ id: 2, error: { code: -32000, message: expect.stringContaining('E_FORK_BLOCKED') } }),
      rpc({ id: 3, error: { code: -32000, message: expect.stringContaining('"issue_refund"') } }),
    ])
    expect(session.run.steps[1]).toMatchObject({
      type: 'http',
      label: 'mcp:batch',
      error: { code: 'E_FORK_BLOCKED' },
    })
  })
})
