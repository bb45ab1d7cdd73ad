import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { startTestProvider, type TestProvider } from './internal/test-provider.ts'
import { startInterceptor } from './start-interceptor.ts'

// The replay fast path (internal/replay-fetch.ts): inside a replaying Session, a model call made with
// the global fetch is answered from the cassette without Node's HTTP client. Node's fetch (undici)
// publishes `undici:request:create` for every request its client makes, so the count of those events
// tells which way a call went: through msw's socket-level interception (one event), or not (none).

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

async function setup(): Promise<TestProvider> {
  const p = await startTestProvider()
  cleanup.push(() => p.provider.close())
  const interceptor = startInterceptor({ hosts: [p.provider.url] })
  cleanup.push(() => interceptor.close())
  return p
}

/** Counts the requests undici's client creates while `fn` runs. */
async function undiciRequests<T>(fn: () => Promise<T>): Promise<{ value: T; requests: number }> {
  let requests = 0
  const onCreate = () => void requests++
  subscribe('undici:request:create', onCreate)
  try {
    const value = await fn()
    return { value, requests }
  } finally {
    unsubscribe('undici:request:create', onCreate)
  }
}

const chat = (url: string, content: string, init: RequestInit = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-5-mini', messages: [{ role: 'user', content }] }),
    ...init,
  })

describe('a replayed model call made with the global fetch', () => {
  it('is answered without Node’s HTTP client, where the recording went through it', async () => {
    const p = await setup()
    p.script([{ text: 'Hello, Ada!' }])
    const agent = async () => {
      const res = await chat(p.provider.url, 'Greet Ada')
      const body = (await res.json()) as { choices: Array<{ message: { content: string } }> }
      return { status: res.status, url: res.url, text: body.choices[0]?.message.content }
    }
    const recorded = await undiciRequests(() => recordRun(agent))
    expect(recorded.requests).toBeGreaterThan(0)
    expect(recorded.value.output).toEqual({
      status: 200,
      url: `${p.provider.url}/v1/chat/completions`,
      text: 'Hello, Ada!',
    })

    p.script([])
    const replayed = await undiciRequests(() => replayRun(recorded.value.loaded, agent))
    expect(replayed.requests).toBe(0)
    expect(p.received()).toBe(0)
    // What the caller sees is what the recording saw, the response's URL included.
    expect(replayed.value.output).toEqual(recorded.value.output)
    expect(replayed.value.session.errors).toEqual([])
    await replayed.value.session.finish({ output: null })
  })

  it('streams through an SDK as it was recorded', async () => {
    const p = await setup()
    const openai = new OpenAI({ baseURL: `${p.provider.url}/v1`, apiKey: 'sk-test', maxRetries: 0 })
    const agent = async () => {
      const stream = await openai.chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'Count to five' }],
        stream: true,
      })
      let text = ''
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
      return text
    }
    p.script([{ text: 'one two three four five', chunkSize: 4 }])
    const recorded = await recordRun(agent)
    p.script([])
    const replayed = await undiciRequests(() => replayRun(recorded.loaded, agent))
    expect(replayed.value.output).toBe('one two three four five')
    expect(replayed.requests).toBe(0)
    await replayed.value.session.finish({ output: null })
  })

  it('rejects as fetch does: a signal aborted before the call, and a recorded network error', async () => {
    const p = await setup()
    p.script([{ text: 'Hi.' }, { fault: { type: 'reset' } }])
    const agent = async () => {
      const first = await chat(p.provider.url, 'Say hi').then((r) => r.status)
      const second = await chat(p.provider.url, 'Say hi again').then(
        (r) => `status ${r.status}`,
        (err: Error) => `${err.name}: ${err.message}`,
      )
      return { first, second }
    }
    const recorded = await recordRun(agent)
    expect(recorded.output).toEqual({ first: 200, second: 'TypeError: fetch failed' })

    const replayed = await replayRun(recorded.loaded, agent)
    expect(replayed.output).toEqual(recorded.output)

    const aborted = await replayRun(recorded.loaded, () =>
      chat(p.provider.url, 'Say hi', { signal: AbortSignal.abort() }).then(
        () => 'answered',
        (err: Error) => err.name,
      ),
    )
    expect(aborted.output).toBe('AbortError')
  })

  it('errors a body being read when its signal aborts', async () => {
    const p = await setup()
    const agent = async (controller?: AbortController) => {
      const res = await chat(p.provider.url, 'Tell a story', controller ? { signal: controller.signal } : {})
      const reader = (res.body as ReadableStream<Uint8Array>).getReader()
      await reader.read()
      controller?.abort()
      return reader.read().then(
        () => 'read on',
        (err: Error) => err.name,
      )
    }
    p.script([{ text: 'Once upon a time.' }])
    const recorded = await recordRun(() => agent())
    const replayed = await replayRun(recorded.loaded, () => agent(new AbortController()))
    expect(replayed.output).toBe('AbortError')
  })

  it('leaves what is not a model call to msw: a request to another loopback server still goes out', async () => {
    await setup()
    const other = await startTestProvider()
    cleanup.push(() => other.provider.close())
    const recorded = await recordRun(async () => null)
    const replayed = await undiciRequests(() =>
      replayRun(recorded.loaded, () => fetch(`${other.provider.url}/health`).then((r) => r.status)),
    )
    expect(replayed.requests).toBe(1)
    expect(typeof replayed.value.output).toBe('number')
  })
})
