import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LlmStep } from '../../case/schema/step.ts'
import { recordRun, replayRun } from '../../engine/internal/test-record-replay.ts'
import { startInterceptor } from '../start-interceptor.ts'
import type { Interceptor } from '../types.ts'
import { type CountingServer, startCountingServer } from './counting-server.ts'
import { modelShaped, readModelShaped } from './model-shaped.ts'

// What makes a request a model call on a host nobody listed: method, path and body. MCP's HTTP+SSE
// transport posts JSON-RPC to `/messages`, the path of Anthropic's API: the body tells them apart (and
// src/mcp records an MCP body as MCP).

const RPC = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_order', arguments: {} } }
/** JSON-RPC that is not MCP: no method of MCP's. */
const OTHER_RPC = { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: '0x0' }, 'latest'] }
const ANTHROPIC = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }

const post = (url: string, body: unknown) =>
  new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

describe('readModelShaped: the body decides', () => {
  const base = 'http://127.0.0.1:3001'

  it('a JSON-RPC body posted to /messages or /v1/messages on loopback is not a model call', async () => {
    expect(await readModelShaped(post(`${base}/messages?sessionId=abc`, RPC))).toBeUndefined()
    expect(await readModelShaped(post(`${base}/v1/messages`, RPC))).toBeUndefined()
  })

  it('an Anthropic-shaped body to /v1/messages is one, and the request stays readable', async () => {
    const request = post(`${base}/v1/messages`, ANTHROPIC)
    expect((await readModelShaped(request))?.id).toBe('anthropic-messages')
    expect(await request.json()).toEqual(ANTHROPIC)
  })

  it.each([
    ['openai-chat', '/v1/chat/completions', { model: 'm', messages: [] }],
    ['openai-chat', '/openai/deployments/d/chat/completions', { messages: [] }],
    ['openai-responses', '/v1/responses', { model: 'm', input: 'hi' }],
    ['openai-responses', '/v1/responses', { model: 'm', input: [] }],
    ['gemini', '/v1beta/models/g:generateContent', { contents: [] }],
    ['gemini', '/v1beta/models/g:streamGenerateContent', { contents: [] }],
  ])('%s at %s with its fields is a model call', async (api, path, body) => {
    expect((await readModelShaped(post(`${base}${path}`, body)))?.id).toBe(api)
  })

  it.each([
    ['/v1/chat/completions', { model: 'm', prompt: 'hi' }],
    ['/v1/chat/completions', { jsonrpc: '2.0', model: 'm', messages: [] }],
    ['/v1/responses', { status: 'ok', answers: [1, 2] }],
    ['/v1/messages', { model: 'm', messages: [] }],
    ['/v1beta/models/g:generateContent', { prompt: 'hi' }],
    ['/v1/chat/completions', 'not json'],
    ['/v1/chat/completions', [{ messages: [] }]],
  ])('%s with %j is not', async (path, body) => {
    expect(await readModelShaped(post(`${base}${path}`, body))).toBeUndefined()
  })

  it('without a body (a connection at the socket) method and path alone decide', () => {
    expect(modelShaped({ method: 'POST', url: `${base}/v1/messages` })?.id).toBe('anthropic-messages')
    expect(
      modelShaped({ method: 'POST', url: `${base}/v1/messages`, body: RPC, bodyRead: true }),
    ).toBeUndefined()
    expect(modelShaped({ method: 'GET', url: `${base}/v1/chat/completions` })).toBeUndefined()
  })
})

describe('through the interceptor, on a loopback host nobody listed', () => {
  let server: CountingServer
  let interceptor: Interceptor
  beforeAll(async () => {
    server = await startCountingServer()
    interceptor = startInterceptor()
  })
  afterAll(async () => {
    await interceptor.close()
    await server.close()
  })

  const send = (path: string, body: unknown) => () =>
    fetch(post(`${server.url}${path}`, body)).then((r) => r.status)

  it('a JSON-RPC post of another protocol to /v1/messages is left alone: it reaches the server, recording and replaying', async () => {
    const before = server.connections()
    const rec = await recordRun(send('/v1/messages', OTHER_RPC))
    expect(rec.output).toBe(200)
    expect(rec.loaded.steps).toEqual([])
    const replay = await replayRun(rec.loaded, send('/v1/messages', OTHER_RPC))
    expect(replay.output).toBe(200)
    expect(replay.session.errors).toEqual([])
    expect(server.connections()).toBe(before + 2)
  })

  it('an MCP post to /v1/messages is no model call: it is recorded as MCP, and replayed without the server', async () => {
    const before = server.connections()
    const rec = await recordRun(send('/v1/messages', RPC))
    expect(rec.loaded.steps.map((s) => (s.type === 'tool' ? `tool ${s.name}` : s.type))).toEqual([
      'tool get_order',
    ])
    const replay = await replayRun(rec.loaded, send('/v1/messages', RPC))
    expect(replay.output).toBe(200)
    expect(replay.session.errors).toEqual([])
    expect(server.connections()).toBe(before + 1)
  })

  it('an Anthropic-shaped post to /v1/messages is recorded, and replayed without reaching the server', async () => {
    const before = server.connections()
    const rec = await recordRun(send('/v1/messages', ANTHROPIC))
    expect(rec.loaded.steps.map((s) => s.type)).toEqual(['llm'])
    expect((rec.loaded.steps[0] as LlmStep).request.wire.url).toBe(`${server.url}/v1/messages`)
    const replay = await replayRun(rec.loaded, send('/v1/messages', ANTHROPIC))
    expect(replay.output).toBe(200)
    expect(replay.session.errors).toEqual([])
    expect(server.connections()).toBe(before + 1)
  })
})
