import * as undici from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { startTestProvider, type TestProvider } from './internal/test-provider.ts'
import { startInterceptor } from './start-interceptor.ts'

// The `undici` package brings its own HTTP stack: neither the global `fetch` nor `node:http`. crashlab's
// network reads HTTP at the socket (msw's HttpRequestInterceptor), so its model calls are recorded and
// replayed like any other client's, with nothing sent on replay.
const cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

async function setUp(): Promise<TestProvider> {
  const p = await startTestProvider()
  cleanup.push(() => p.provider.close())
  const interceptor = startInterceptor({ hosts: [p.provider.url] })
  cleanup.push(() => interceptor.close())
  return p
}

const body = (question: string) =>
  JSON.stringify({ model: 'gpt-5-mini', messages: [{ role: 'user', content: question }] })

type Chat = { choices: Array<{ message: { content: string } }> }

describe("the undici package's own clients", () => {
  it('undici.request(): recorded as a model call, then replayed offline', async () => {
    const p = await setUp()
    // A fresh Agent per call: no pooled socket carries a call past the interceptor.
    const ask = async (question: string) => {
      const r = await undici.request(`${p.provider.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(question),
        dispatcher: new undici.Agent(),
      })
      return ((await r.body.json()) as Chat).choices[0]?.message.content
    }
    p.script([{ text: 'recorded through undici' }])
    const rec = await recordRun(() => ask('hi'))
    expect(rec.output).toBe('recorded through undici')
    expect(rec.loaded.steps).toMatchObject([{ type: 'llm', provider: 'openai-chat' }])

    p.script([])
    const { output, session } = await replayRun(rec.loaded, () => ask('hi'))
    expect(output).toBe('recorded through undici')
    expect(p.received()).toBe(0)
    expect(session.errors).toEqual([])
    await session.finish({ output })
  })

  it('undici.fetch(): recorded and replayed the same way', async () => {
    const p = await setUp()
    const ask = async (question: string) => {
      const r = await undici.fetch(`${p.provider.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(question),
        dispatcher: new undici.Agent(),
      })
      return ((await r.json()) as Chat).choices[0]?.message.content
    }
    p.script([{ text: 'fetched' }])
    const rec = await recordRun(() => ask('hi'))
    expect(rec.loaded.steps).toMatchObject([{ type: 'llm' }])

    p.script([])
    const { output, session } = await replayRun(rec.loaded, () => ask('hi'))
    expect(output).toBe('fetched')
    expect(p.received()).toBe(0)
    await session.finish({ output })
  })
})
