import { describe, expect, it } from 'vitest'
import { isMcpRequest, isMcpStreamRequest, readMcpMessages, readMcpRequest } from './mcp-message.ts'

const rpc = (message: Record<string, unknown>) => ({ jsonrpc: '2.0', ...message })

describe('readMcpMessages: MCP by its JSON-RPC body', () => {
  it.each([
    ['initialize', rpc({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } })],
    ['tools/list', rpc({ id: 1, method: 'tools/list' })],
    ['tools/call', rpc({ id: 'a', method: 'tools/call', params: { name: 'get_order', arguments: {} } })],
    ['resources/read', rpc({ id: 2, method: 'resources/read', params: { uri: 'file:///a' } })],
    ['resources/templates/list', rpc({ id: 3, method: 'resources/templates/list' })],
    ['prompts/get', rpc({ id: 4, method: 'prompts/get', params: { name: 'p' } })],
    ['ping', rpc({ id: 5, method: 'ping' })],
    ['completion/complete', rpc({ id: 6, method: 'completion/complete', params: {} })],
    ['logging/setLevel', rpc({ id: 7, method: 'logging/setLevel', params: { level: 'info' } })],
    ['a notification', rpc({ method: 'notifications/initialized' })],
  ])('%s is MCP', (_, body) => {
    expect(isMcpRequest(body)).toBe(true)
  })

  it('reads requests, notifications and a batch, keeping ids and params', () => {
    expect(readMcpMessages(rpc({ id: 9, method: 'tools/call', params: { name: 'x' } }))).toEqual([
      { kind: 'request', method: 'tools/call', id: 9, params: { name: 'x' } },
    ])
    expect(
      readMcpMessages([
        rpc({ method: 'notifications/cancelled', params: {} }),
        rpc({ id: 1, method: 'ping' }),
      ]),
    ).toEqual([
      { kind: 'notification', method: 'notifications/cancelled', params: {} },
      { kind: 'request', method: 'ping', id: 1, params: undefined },
    ])
  })

  it('takes a response to a server request in a batch with an MCP message, not a batch of bare responses', () => {
    const answer = rpc({ id: 3, result: { content: [] } })
    expect(readMcpMessages([answer, rpc({ method: 'notifications/progress', params: {} })])?.[0]).toEqual({
      kind: 'response',
      id: 3,
      result: { content: [] },
      error: undefined,
    })
    // Alone, a JSON-RPC response says nothing of its protocol: MCP's client sends one only inside a
    // session, and then with its session headers; the body rule does not claim it.
    expect(readMcpMessages(answer)).toBeUndefined()
    expect(readMcpMessages([answer])).toBeUndefined()
  })

  it.each([
    ['an Anthropic Messages body', { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [] }],
    ['an OpenAI chat body', { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }] }],
    ['an Ethereum JSON-RPC call', rpc({ id: 1, method: 'eth_call', params: [{ to: '0x0' }, 'latest'] })],
    ['a language server request', rpc({ id: 1, method: 'textDocument/hover', params: {} })],
    ['JSON-RPC 1.0', { id: 1, method: 'tools/call', params: {} }],
    [
      'a batch with one foreign method',
      [rpc({ id: 1, method: 'tools/list' }), rpc({ id: 2, method: 'eth_call' })],
    ],
    ['an empty batch', []],
    ['a request with an object id', rpc({ id: { a: 1 }, method: 'tools/list' })],
    ['a string', 'tools/call'],
    ['null', null],
  ])('%s is not MCP', (_, body) => {
    expect(isMcpRequest(body)).toBe(false)
  })
})

describe('readMcpRequest: a fetch Request', () => {
  const post = (path: string, body: unknown, type = 'application/json') =>
    new Request(`http://127.0.0.1:3001${path}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  it('recognises MCP on any path, the old transport’s /messages included, and leaves the request unread', async () => {
    const body = rpc({ id: 1, method: 'tools/list' })
    for (const path of ['/mcp', '/messages?sessionId=abc', '/v1/messages', '/']) {
      const request = post(path, body)
      expect((await readMcpRequest(request))?.[0]).toMatchObject({ method: 'tools/list' })
      expect(request.bodyUsed).toBe(false)
    }
  })

  it('does not take an Anthropic call to /v1/messages, a non-JSON body or a GET', async () => {
    expect(
      await readMcpRequest(post('/v1/messages', { model: 'm', max_tokens: 1, messages: [] })),
    ).toBeUndefined()
    expect(await readMcpRequest(post('/mcp', rpc({ id: 1, method: 'ping' }), 'text/plain'))).toBeUndefined()
    expect(await readMcpRequest(post('/mcp', '{"jsonrpc":'))).toBeUndefined()
    expect(await readMcpRequest(new Request('http://127.0.0.1:3001/mcp'))).toBeUndefined()
  })
})

describe('isMcpStreamRequest: a bodiless GET or DELETE of an MCP session', () => {
  it('is decided by the MCP session headers', () => {
    expect(isMcpStreamRequest('GET', new Headers({ 'mcp-session-id': 's1' }))).toBe(true)
    expect(isMcpStreamRequest('DELETE', new Headers({ 'mcp-protocol-version': '2025-06-18' }))).toBe(true)
    expect(isMcpStreamRequest('GET', new Headers({ accept: 'text/event-stream' }))).toBe(false)
    expect(isMcpStreamRequest('POST', new Headers({ 'mcp-session-id': 's1' }))).toBe(false)
  })
})
