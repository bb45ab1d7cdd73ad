import { afterEach, describe, expect, it } from 'vitest'
import { getAdapter } from '../providers/registry.ts'
import { parseSse } from '../providers/sse.ts'
import { apiCall, post, readStream } from './internal/test-client.ts'
import { startScriptedProvider } from './start-scripted-provider.ts'
import type { ScriptedProvider, ScriptedProviderOptions } from './types.ts'

const open: ScriptedProvider[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()))
})

async function start(options: ScriptedProviderOptions): Promise<ScriptedProvider> {
  const provider = await startScriptedProvider(options)
  open.push(provider)
  return provider
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] as number))
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

describe('startScriptedProvider', () => {
  it('listens on a free loopback port and gives its origin', async () => {
    const a = await start({ turns: [] })
    const b = await start({ turns: [] })
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(a.url).toBe(`http://127.0.0.1:${a.port}`)
    expect(a.port).not.toBe(b.port)
  })

  it('answers concurrent calls with distinct turns and distinct call numbers', async () => {
    const provider = await start({ turns: ['a', 'b', 'c', 'd'].map((text) => ({ text, delayMs: 30 })) })
    const bodies = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const res = await post(provider.url, apiCall('openai-chat', false))
        return ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]
          ?.message.content
      }),
    )
    expect([...bodies].sort()).toEqual(['a', 'b', 'c', 'd'])
    expect(provider.requests.map((r) => r.index).sort()).toEqual([0, 1, 2, 3])
  })
})

describe('timing', () => {
  it('chunkDelayMs spreads the events of a stream', async () => {
    const provider = await start({
      turns: [{ text: 'abcdefghijklmnopqrstuvwxyz', chunkSize: 5 }],
      chunkDelayMs: 40,
    })
    const { events } = await readStream(await post(provider.url, apiCall('anthropic-messages', true)))
    expect(events.length).toBeGreaterThan(6)
    const times = events.map((e) => e.atMs)
    // Generous bounds: timers may fire late, never early by more than a tick.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual((events.length - 1) * 40 * 0.75)
    expect(median(gaps(times))).toBeGreaterThanOrEqual(30)
  })

  it('a turn’s chunkDelayMs overrides the option, and no delay sends the stream at once', async () => {
    const provider = await start({
      turns: [{ text: 'x', chunkDelayMs: 0 }, { text: 'y' }],
      chunkDelayMs: 500,
    })
    const started = performance.now()
    const { events } = await readStream(await post(provider.url, apiCall('openai-chat', true)))
    expect(events.length).toBeGreaterThan(2)
    expect(performance.now() - started).toBeLessThan(400)
    expect(provider.requests[0]?.answer?.kind).toBe('reply')
  })

  it('latencyMs and delayMs hold the response before it starts', async () => {
    const provider = await start({
      turns: [{ text: 'slow' }, { text: 'slower', delayMs: 250 }],
      latencyMs: 120,
    })
    for (const least of [100, 220]) {
      const started = performance.now()
      const res = await post(provider.url, apiCall('openai-responses', false))
      expect(performance.now() - started).toBeGreaterThanOrEqual(least)
      expect(res.status).toBe(200)
      await res.text()
    }
  })
})

describe('chunkSize', () => {
  const TEXT = 'Hello, world! How are you?'
  const PIECES = ['Hell', 'o, w', 'orld', '! Ho', 'w ar', 'e yo', 'u?']

  it.each(['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const)(
    '%s: re-splits the text deltas into pieces, and the stream still reads as the same answer',
    async (api) => {
      const provider = await start({ turns: [{ text: TEXT }, { text: TEXT, chunkSize: 4 }] })
      const whole = await readStream(await post(provider.url, apiCall(api, true)))
      const split = await readStream(await post(provider.url, apiCall(api, true)))
      // Each piece travels as a JSON string of its own, in order.
      const at = PIECES.map((piece) => split.events.findIndex((e) => e.data.includes(JSON.stringify(piece))))
      expect(at.every((i) => i >= 0)).toBe(true)
      expect([...at].sort((a, b) => a - b)).toEqual(at)
      expect(split.events.length).toBeGreaterThan(whole.events.length)
      const adapter = getAdapter(api)
      const a = adapter.assembleStream(parseSse(whole.text))
      const b = adapter.assembleStream(parseSse(split.text))
      expect(b.incomplete).toBe(false)
      expect(b.response.parts).toEqual([{ type: 'text', text: TEXT }])
      expect({ ...b.response, requestId: null }).toEqual({ ...a.response, requestId: null })
    },
  )
})

describe('other routes', () => {
  it('answers the models list in the shape of the SDK that asks', async () => {
    const provider = await start({ turns: [], model: 'my-model' })
    const openai = await (await fetch(`${provider.url}/v1/models`)).json()
    expect(openai).toMatchObject({ object: 'list', data: [{ id: 'my-model', object: 'model' }] })
    const anthropic = await (
      await fetch(`${provider.url}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } })
    ).json()
    expect(anthropic).toMatchObject({ data: [{ type: 'model', id: 'my-model' }], has_more: false })
    const gemini = await (await fetch(`${provider.url}/v1beta/models`)).json()
    expect(gemini).toMatchObject({ models: [{ name: 'models/my-model' }] })
    const one = await (await fetch(`${provider.url}/v1/models/gpt-4o`)).json()
    expect(one).toMatchObject({ id: 'gpt-4o', object: 'model' })
    const traces = await fetch(`${provider.url}/v1/traces/ingest`, { method: 'POST', body: '{"data":[]}' })
    expect(traces.status).toBe(204)
    expect(provider.requests.map((r) => [r.api, r.index, r.answer])).toEqual([
      [null, null, { kind: 'http', status: 200 }],
      [null, null, { kind: 'http', status: 200 }],
      [null, null, { kind: 'http', status: 200 }],
      [null, null, { kind: 'http', status: 200 }],
      [null, null, { kind: 'http', status: 204 }],
    ])
  })

  it('answers an unknown path with a 404 naming the path and the four APIs, without using a turn', async () => {
    const provider = await start({ turns: [{ text: 'kept' }] })
    const res = await fetch(`${provider.url}/v2/chat`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(404)
    const body = (await res.json()) as { error: { message: string } }
    expect(body.error.message).toContain('POST /v2/chat')
    for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/messages', ':generateContent']) {
      expect(body.error.message).toContain(path)
    }
    expect(provider.requests[0]).toMatchObject({
      path: '/v2/chat',
      api: null,
      answer: { kind: 'http', status: 404 },
    })
    const next = await post(provider.url, apiCall('openai-chat', false))
    expect(next.status).toBe(200)
    expect(provider.requests[1]?.index).toBe(0)
  })

  it('refuses a model call whose body is not JSON with a 400, without using a turn', async () => {
    const provider = await start({ turns: [{ text: 'kept' }] })
    const res = await fetch(`${provider.url}/v1/messages`, { method: 'POST', body: 'not json' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } })
    expect(provider.requests[0]).toMatchObject({ api: 'anthropic-messages', index: null, body: null })
    expect(provider.requests[0]?.answer).toMatchObject({
      kind: 'error',
      status: 400,
      code: 'E_SCRIPT_REQUEST',
    })
    expect((await post(provider.url, apiCall('anthropic-messages', false))).status).toBe(200)
  })
})

describe('close()', () => {
  it('returns quickly with a keep-alive connection open, and twice', async () => {
    const provider = await startScriptedProvider({ turns: [{ text: 'a' }] })
    const res = await post(provider.url, apiCall('openai-chat', false), { connection: 'keep-alive' })
    await res.text()
    const started = performance.now()
    await Promise.all([provider.close(), provider.close()])
    await provider.close()
    expect(performance.now() - started).toBeLessThan(500)
    await expect(fetch(`${provider.url}/v1/models`)).rejects.toThrow()
  })

  it('ends a stream that is still running and returns quickly', async () => {
    const provider = await startScriptedProvider({
      turns: [{ text: 'abcdef', chunkSize: 1, chunkDelayMs: 60_000 }],
    })
    const res = await post(provider.url, apiCall('openai-chat', true))
    const reading = readStream(res)
    await new Promise((r) => setTimeout(r, 50))
    const started = performance.now()
    await provider.close()
    expect(performance.now() - started).toBeLessThan(500)
    const { events, error } = await reading
    expect(error).toBeInstanceOf(Error)
    expect(events.length).toBe(1)
  })
})
