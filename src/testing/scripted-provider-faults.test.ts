import { afterEach, describe, expect, it } from 'vitest'
import { getAdapter } from '../providers/registry.ts'
import { parseSse } from '../providers/sse.ts'
import { apiCall, errorCode, post, readStream } from './internal/test-client.ts'
import { startScriptedProvider } from './start-scripted-provider.ts'
import type { Fault, ScriptedProvider } from './types.ts'

let provider: ScriptedProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function serve(fault: Fault, extra: object = {}): Promise<ScriptedProvider> {
  provider = await startScriptedProvider({ turns: [{ ...extra, fault }] })
  return provider
}

/** Resolves to 'pending' when `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))])
}

describe('rate_limit', () => {
  it.each([
    [
      'openai-chat',
      { error: { type: 'requests', code: 'rate_limit_exceeded', message: expect.any(String) } },
    ],
    [
      'openai-responses',
      { error: { code: 'rate_limit_exceeded', message: expect.stringContaining('Rate limit') } },
    ],
    [
      'anthropic-messages',
      { type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) } },
    ],
    ['gemini', { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.any(String) } }],
  ] as const)('%s: 429, retry-after and the API’s own error body', async (api, shape) => {
    const p = await serve({ type: 'rate_limit', retryAfter: 7 })
    const res = await post(p.url, apiCall(api, true))
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('7')
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toMatchObject(shape)
    expect(p.requests[0]?.answer).toMatchObject({ kind: 'fault', status: 429, fault: { type: 'rate_limit' } })
  })

  it('defaults retry-after to one second', async () => {
    const p = await serve({ type: 'rate_limit' })
    expect((await post(p.url, apiCall('openai-chat', false))).headers.get('retry-after')).toBe('1')
  })
})

describe('server_error', () => {
  it.each([
    ['openai-chat', { error: { type: 'server_error' } }],
    ['anthropic-messages', { type: 'error', error: { type: 'api_error' } }],
    ['gemini', { error: { code: 500, status: 'INTERNAL' } }],
  ] as const)('%s: 500 is the API’s JSON error', async (api, shape) => {
    const p = await serve({ type: 'server_error', status: 500 })
    const res = await post(p.url, apiCall(api, false))
    expect(res.status).toBe(500)
    expect(await res.json()).toMatchObject(shape)
  })

  it.each([
    [502, 'Bad Gateway'],
    [503, 'Service Temporarily Unavailable'],
  ] as const)('%d is the gateway’s HTML page, not JSON', async (status, title) => {
    const p = await serve({ type: 'server_error', status })
    const res = await post(p.url, apiCall('openai-chat', true))
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toBe('text/html')
    const html = await res.text()
    expect(html).toContain(`<title>${status} ${title}</title>`)
    expect(() => JSON.parse(html)).toThrow()
  })
})

describe('timeout', () => {
  it('never answers, and close() still ends promptly, failing the waiting client', async () => {
    const p = await serve({ type: 'timeout' })
    const pending = post(p.url, apiCall('anthropic-messages', false)).then(
      (res) => res.status,
      (err: unknown) => err,
    )
    expect(await within(pending, 300)).toBe('pending')
    expect(p.requests[0]?.answer).toMatchObject({ kind: 'fault', status: null })
    const started = performance.now()
    await p.close()
    expect(performance.now() - started).toBeLessThan(1000)
    expect(await within(pending, 1000)).toBeInstanceOf(Error)
  })

  it('with afterMs, holds the connection that long and then drops it', async () => {
    const p = await serve({ type: 'timeout', afterMs: 150 })
    const started = performance.now()
    const err = await post(p.url, apiCall('openai-chat', false)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect(performance.now() - started).toBeGreaterThanOrEqual(120)
  })
})

describe('reset', () => {
  it('drops the connection with no response: the client sees ECONNRESET', async () => {
    const p = await serve({ type: 'reset' })
    const err = await post(p.url, apiCall('openai-chat', false)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect(errorCode(err)).toBe('ECONNRESET')
    expect(p.requests[0]?.answer).toMatchObject({ kind: 'fault', status: null, fault: { type: 'reset' } })
  })
})

describe('cut_stream', () => {
  it.each(['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const)(
    '%s: the stream stops after the given events and the body errors',
    async (api) => {
      const p = await serve(
        { type: 'cut_stream', afterEvents: 2 },
        { text: 'A long answer '.repeat(10), chunkSize: 10 },
      )
      const res = await post(p.url, apiCall(api, true))
      expect(res.status).toBe(200)
      const { text, events, error } = await readStream(res)
      expect(error).toBeInstanceOf(Error)
      expect(events).toHaveLength(2)
      expect(getAdapter(api).assembleStream(parseSse(text)).incomplete).toBe(true)
    },
  )

  it('cuts a plain answer in the middle of its body', async () => {
    const p = await serve({ type: 'cut_stream', afterEvents: 1 }, { text: 'hello' })
    const res = await post(p.url, apiCall('openai-chat', false))
    expect(res.status).toBe(200)
    await expect(res.text()).rejects.toThrow()
  })
})

describe('malformed_json', () => {
  it('answers 200 application/json with a body that is not JSON', async () => {
    const p = await serve({ type: 'malformed_json' }, { text: 'hello' })
    const res = await post(p.url, apiCall('anthropic-messages', false))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const text = await res.text()
    expect(text.startsWith('{')).toBe(true)
    expect(() => JSON.parse(text)).toThrow()
  })

  it('in a stream, cuts the first event’s JSON', async () => {
    const p = await serve({ type: 'malformed_json' }, { text: 'hello' })
    const { events, error } = await readStream(await post(p.url, apiCall('openai-chat', true)))
    expect(error).toBeUndefined()
    expect(() => JSON.parse(events[0]?.data ?? '')).toThrow()
    expect(() => JSON.parse(events[1]?.data ?? '')).not.toThrow()
  })
})

describe('faults in a script', () => {
  it('serve one after another, then the reply, as an agent’s retries would meet them', async () => {
    provider = await startScriptedProvider({
      turns: [
        { fault: { type: 'rate_limit', retryAfter: 0 } },
        { fault: { type: 'server_error', status: 502 } },
        { text: 'ok' },
      ],
    })
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      const res = await post(provider.url, apiCall('openai-chat', false))
      await res.text()
      statuses.push(res.status)
    }
    expect(statuses).toEqual([429, 502, 200])
    expect(provider.requests.map((r) => r.answer?.kind)).toEqual(['fault', 'fault', 'reply'])
  })

  it('wait delayMs before the fault', async () => {
    const p = await serve({ type: 'server_error' }, { delayMs: 120 })
    const started = performance.now()
    expect((await post(p.url, apiCall('gemini', false))).status).toBe(500)
    expect(performance.now() - started).toBeGreaterThanOrEqual(100)
  })

  it('come from a policy too', async () => {
    provider = await startScriptedProvider({
      policy: (_request, { index }) => (index === 0 ? { fault: { type: 'rate_limit' } } : { text: 'ok' }),
    })
    expect((await post(provider.url, apiCall('openai-chat', false))).status).toBe(429)
    expect((await post(provider.url, apiCall('openai-chat', false))).status).toBe(200)
  })
})
