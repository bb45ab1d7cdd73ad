import { afterEach, describe, expect, it } from 'vitest'
import type { JsonValue } from '../case/schema/json.ts'
import type { NormalizedResponse } from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { getAdapter } from '../providers/registry.ts'
import { formatSse, parseSse } from '../providers/sse.ts'
import type { ProviderId } from '../providers/types.ts'
import { apiCall, post, readStream, withoutTimes } from './internal/test-client.ts'
import { startScriptedProvider } from './start-scripted-provider.ts'
import type { ScriptedProvider } from './types.ts'

const APIS = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const
const RESPONSE_IDS: Record<ProviderId, string> = {
  'openai-chat': 'chatcmpl-scripted-0',
  'openai-responses': 'resp_scripted_0',
  'anthropic-messages': 'msg_scripted_0',
  gemini: 'scripted-0',
}
const TEXT = 'Let me look up order A17 for you.'
const TURN = {
  text: TEXT,
  toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }],
  usage: { inputTokens: 50, outputTokens: 20 },
}

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

/** The response the turn stands for, written out by hand (not by the code under test). */
function expectedResponse(api: ProviderId, model: string): NormalizedResponse {
  return {
    model,
    requestId: api === 'gemini' ? 'scripted-0' : 'req_scripted_0',
    parts: [{ type: 'text', text: TEXT }],
    toolCalls: [
      {
        type: 'tool_call',
        id: api === 'anthropic-messages' ? 'toolu_scripted_0_0' : 'call_scripted_0_0',
        name: 'get_order',
        args: { order_id: 'A17' },
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 50, outputTokens: 20 },
  }
}

function wireOf(origin: string, call: ReturnType<typeof apiCall>): WireRequest {
  return {
    method: 'POST',
    url: `${origin}${call.path}`,
    headers: { 'content-type': 'application/json' },
    body: call.body,
  }
}

describe.each(APIS)('%s', (api) => {
  const adapter = getAdapter(api)

  it('answers a plain call with exactly the body the adapter writes', async () => {
    provider = await startScriptedProvider({ turns: [TURN] })
    const call = apiCall(api, false)
    const res = await post(provider.url, call)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const body = (await res.json()) as JsonValue

    const request = adapter.normalizeRequest(wireOf(provider.url, call))
    expect(request.model).not.toBe('')
    const expected = expectedResponse(api, request.model)
    expect(body).toEqual(adapter.writeResponse(expected, { id: RESPONSE_IDS[api], request }))
    // And the adapter reads it back as the turn: text, tool call, finish reason.
    const headers = Object.fromEntries(res.headers)
    const read = adapter.normalizeResponse({ status: 200, headers, body })
    expect(read?.parts).toEqual(expected.parts)
    expect(read?.toolCalls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'get_order', args: { order_id: 'A17' } },
    ])
    expect(read?.finishReason).toBe('tool_calls')
    // What the client reads back is, field for field, what the provider says it served.
    const answer = provider.requests[0]?.answer
    expect(answer?.kind === 'reply' && answer.response).toEqual(read)
  })

  it('streams exactly the events the adapter writes, framed by formatSse', async () => {
    provider = await startScriptedProvider({ turns: [TURN] })
    const call = apiCall(api, true)
    const res = await post(provider.url, call)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const { text, events, error } = await readStream(res)
    expect(error).toBeUndefined()

    const request = adapter.normalizeRequest(wireOf(provider.url, call))
    const written = adapter.writeStream(expectedResponse(api, request.model), {
      id: RESPONSE_IDS[api],
      request,
    })
    expect(written.length).toBeGreaterThan(1)
    expect(text).toBe(written.map(formatSse).join(''))
    expect(withoutTimes(events)).toEqual(withoutTimes(written))
    const assembled = adapter.assembleStream(parseSse(text))
    expect(assembled.incomplete).toBe(false)
    expect(assembled.response.parts).toEqual([{ type: 'text', text: TEXT }])
    expect(assembled.response.toolCalls.map((c) => c.name)).toEqual(['get_order'])
    const answer = provider.requests[0]?.answer
    const read = adapter.normalizeResponse({
      status: 200,
      headers: Object.fromEntries(res.headers),
      body: null,
      chunks: events,
    })
    expect(answer?.kind === 'reply' && answer.response).toEqual(read)
  })

  it('records the request: path, headers, body, API, normalized request and answer', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'ok' }] })
    const call = apiCall(api, true)
    const res = await post(provider.url, call, { 'x-test': 'yes' })
    await res.text()
    expect(provider.requests).toHaveLength(1)
    const [received] = provider.requests
    expect(received).toMatchObject({
      index: 0,
      method: 'POST',
      path: call.path,
      body: call.body,
      api,
      stream: true,
      answer: { kind: 'reply', status: 200, turn: { text: 'ok' } },
    })
    expect(received?.headers['x-test']).toBe('yes')
    expect(received?.normalized?.system).toEqual([
      { type: 'text', text: 'You are a refund assistant. Never refund more than the order total.' },
    ])
    expect(received?.normalized?.tools.map((t) => t.name)).toEqual(['get_order'])
    expect(received?.answer?.kind === 'reply' && received.answer.response.parts).toEqual([
      { type: 'text', text: 'ok' },
    ])
  })
})

describe('one script across the four APIs', () => {
  it('serves the turns in order, whichever API asks', async () => {
    provider = await startScriptedProvider({
      turns: [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }],
    })
    const order = ['anthropic-messages', 'gemini', 'openai-chat', 'openai-responses'] as const
    const texts: string[] = []
    for (const api of order) {
      const call = apiCall(api, false)
      const res = await post(provider.url, call)
      const body = (await res.json()) as JsonValue
      const read = getAdapter(api).normalizeResponse({ status: res.status, headers: {}, body })
      texts.push(read?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '')
    }
    expect(texts).toEqual(['one', 'two', 'three', 'four'])
    expect(provider.requests.map((r) => [r.index, r.api])).toEqual(order.map((api, i) => [i, api]))
  })

  it('answers a call past the last turn with a 500 that names the call and says to add a turn', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'only' }] })
    await (await post(provider.url, apiCall('openai-chat', false))).json()
    const res = await post(provider.url, apiCall('openai-chat', false))
    expect(res.status).toBe(500)
    // SDKs retry a 500; this one must not be retried: it never goes away.
    expect(res.headers.get('x-should-retry')).toBe('false')
    const body = (await res.json()) as { error: { message: string; code: string } }
    expect(body.error.code).toBe('E_SCRIPT_EXHAUSTED')
    expect(body.error.message).toContain('model call 2')
    expect(body.error.message).toContain('the script has 1 turn,')
    expect(body.error.message).toContain('Add a turn')
    expect(provider.requests[1]?.answer).toMatchObject({
      kind: 'error',
      status: 500,
      code: 'E_SCRIPT_EXHAUSTED',
    })
  })

  it('speaks each API’s error shape for the exhausted script (Anthropic)', async () => {
    provider = await startScriptedProvider({ turns: [] })
    const res = await post(provider.url, apiCall('anthropic-messages', false))
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'api_error', message: expect.stringContaining('E_SCRIPT_EXHAUSTED') },
    })
  })
})
