import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { runInSession } from '../engine/context.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { Session } from '../engine/session.ts'
import { wrap } from '../engine/wrap.ts'
import { isCrashlabError } from '../errors.ts'
import { crashlabHandlers } from './crashlab-handlers.ts'
import { startTestProvider, type TestProvider } from './internal/test-provider.ts'
import { startInterceptor } from './start-interceptor.ts'

// Every test starts its own provider: a fresh origin, so that no keep-alive socket opened by an earlier
// test (with no interceptor running) carries this test's requests past MSW.
const cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})
async function provider(): Promise<TestProvider> {
  const p = await startTestProvider()
  cleanup.push(() => p.provider.close())
  return p
}

const USERS = 'https://api.example.com/users'
const usersHandler = http.get(USERS, () => HttpResponse.json([{ id: 1, name: 'Ada' }]))
const ask = (openai: OpenAI, question: string) =>
  openai.chat.completions
    .create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: question }] })
    .then((r) => r.choices[0]?.message.content)
const openaiFor = (p: TestProvider) =>
  new OpenAI({ baseURL: `${p.provider.url}/v1`, apiKey: 'sk-test', maxRetries: 0 })

describe("(a) crashlab's handlers in the user's own MSW server", () => {
  it("the user's mock answers and crashlab records and replays the model call, in one run", async () => {
    const p = await provider()
    const server = setupServer(usersHandler, ...crashlabHandlers({ hosts: [p.provider.url] }))
    server.listen({ onUnhandledFrame: 'error' })
    cleanup.push(() => server.close())
    const openai = openaiFor(p)
    const agent = async () => {
      const users = (await (await fetch(USERS)).json()) as Array<{ name: string }>
      return ask(openai, `Greet ${users.map((u) => u.name).join(', ')}`)
    }
    p.script([{ text: 'Hello, Ada!' }])
    const rec = await recordRun(agent)
    expect(rec.output).toBe('Hello, Ada!')
    // The mocked call is the user's business: not a step. The model call is.
    expect(rec.loaded.steps).toMatchObject([{ type: 'llm', provider: 'openai-chat' }])

    p.script([])
    const { output, session } = await replayRun(rec.loaded, agent)
    expect(output).toBe('Hello, Ada!')
    expect(p.received()).toBe(0)
    expect(session.errors).toEqual([])
    await session.finish({ output })
  })

  it("crashlab's handlers spread first: in a replay the guard answers the mocked host first, and says so", async () => {
    const p = await provider()
    const server = setupServer(...crashlabHandlers({ hosts: [p.provider.url] }), usersHandler)
    server.listen({ onUnhandledFrame: 'error' })
    cleanup.push(() => server.close())
    const rec = await recordRun(async () => null)
    const { output, session } = await replayRun(rec.loaded, () =>
      fetch(USERS).then(
        (r) => (r.status === 400 ? 'refused' : 'mocked'),
        () => 'failed',
      ),
    )
    expect(output).toBe('refused')
    expect(session.errors[0]?.message).toContain("placed before crashlab's")
  })

  it("otherHosts: 'passthrough' lets a replay reach other hosts", async () => {
    const p = await provider()
    const target = await provider()
    const server = setupServer(...crashlabHandlers({ hosts: [p.provider.url], otherHosts: 'passthrough' }))
    server.listen({ onUnhandledFrame: 'bypass' })
    cleanup.push(() => server.close())
    const rec = await recordRun(async () => null)
    const { output, session } = await replayRun(rec.loaded, () =>
      fetch(`${target.provider.url}/v1/models`).then((r) => r.status),
    )
    expect(output).toBe(200)
    expect(target.received()).toBe(1)
    await session.finish({ output })
  })
})

describe('(b) a second MSW server beside crashlab’s is refused with a clear error', () => {
  it("the user's server listens first: startInterceptor() throws, and the user's server still answers", async () => {
    const server = setupServer(usersHandler)
    server.listen({ onUnhandledFrame: 'bypass' })
    cleanup.push(() => server.close())
    expect(() => startInterceptor({ hosts: ['api.openai.com'] })).toThrow(
      expect.objectContaining({
        code: 'E_INTERCEPTOR_CONFLICT',
        message: expect.stringContaining('crashlabHandlers()'),
      }),
    )
    expect(await (await fetch(USERS)).json()).toEqual([{ id: 1, name: 'Ada' }])
  })

  it("crashlab's server listens first: the user's listen() throws, and crashlab keeps recording, even after the user's close()", async () => {
    const p = await provider()
    const interceptor = startInterceptor({ hosts: [p.provider.url] })
    cleanup.push(() => interceptor.close())
    const server = setupServer(usersHandler)
    let thrown: unknown
    try {
      server.listen()
    } catch (error) {
      thrown = error
    }
    expect(isCrashlabError(thrown, 'E_INTERCEPTOR_CONFLICT')).toBe(true)
    server.close()
    p.script([{ text: 'still recorded' }])
    const rec = await recordRun(() => ask(openaiFor(p), 'hi'))
    expect(rec.output).toBe('still recorded')
    expect(rec.loaded.steps).toHaveLength(1)
  })
})

describe('startInterceptor() is one server per process', () => {
  it('a second call shares the running server; the last close() stops it', async () => {
    const p = await provider()
    const first = startInterceptor({ hosts: [p.provider.url] })
    const second = startInterceptor({ hosts: [p.provider.url] })
    expect(second.handlers).toBe(first.handlers)
    expect(() => startInterceptor({ hosts: ['api.anthropic.com'] })).toThrow(
      expect.objectContaining({ code: 'E_INTERCEPTOR_CONFLICT' }),
    )
    await first.close()
    await first.close() // a second close of the same handle does not release the other one
    p.script([{ text: 'recorded' }])
    const rec = await recordRun(() => ask(openaiFor(p), 'hi'))
    expect(rec.loaded.steps).toHaveLength(1)

    await second.close()
    // Stopped: a replay Session no longer sees the call, which reaches the provider.
    p.script([{ text: 'live' }])
    const session = new Session({ mode: 'replay', recorded: rec.loaded })
    expect(await runInSession(session, () => ask(openaiFor(p), 'hi'))).toBe('live')
    expect(p.received()).toBe(1)
  })
})

describe('a second copy of crashlab in the process', () => {
  it('cannot take over the running interceptor (its handlers would read the other copy’s Sessions)', async () => {
    const first = startInterceptor({ hosts: ['api.openai.com'] })
    cleanup.push(() => first.close())
    vi.resetModules()
    const copy = await import('./start-interceptor.ts')
    expect(copy.startInterceptor).not.toBe(startInterceptor)
    expect(() => copy.startInterceptor({ hosts: ['api.openai.com'] })).toThrow(
      expect.objectContaining({
        code: 'E_INTERCEPTOR_CONFLICT',
        message: expect.stringContaining('another copy'),
      }),
    )
  })
})

describe('clients that escape interception (keep-alive, created before listen())', () => {
  it('a client created before startInterceptor() keeps the old fetch, and is still seen: msw reads HTTP at the socket', async () => {
    const p = await provider()
    const early = openaiFor(p)
    const interceptor = startInterceptor({ hosts: [p.provider.url] })
    cleanup.push(() => interceptor.close())
    p.script([{ text: 'recorded' }])
    const rec = await recordRun(() => ask(openaiFor(p), 'hi'))

    p.script([{ text: 'escaped' }])
    const early1 = await replayRun(rec.loaded, () => ask(early, 'hi'))
    expect(early1.output).toBe('recorded')
    expect(p.received()).toBe(0)
    await early1.session.finish({ output: null })

    p.script([])
    const fixed = await replayRun(rec.loaded, () => ask(wrap(early), 'hi'))
    expect(fixed.output).toBe('recorded')
    expect(p.received()).toBe(0)
    await fixed.session.finish({ output: null })
  })

  it('a keep-alive connection opened before startInterceptor() is reused unseen: one of two calls escapes', async () => {
    const p = await provider()
    const early = openaiFor(p)
    p.script([{ text: 'warm-up' }, { text: 'early' }, { text: 'late' }])
    await ask(early, 'warm-up') // opens a keep-alive connection before interception starts
    const interceptor = startInterceptor({ hosts: [p.provider.url] })
    cleanup.push(() => interceptor.close())
    const rec = await recordRun(async () => [await ask(early, 'hi'), await ask(openaiFor(p), 'hi')])
    // Both clients share Node's pooled connections: the call that goes out on the socket opened before
    // listen() is written to it unseen and not recorded (msw reads a socket from its connect on).
    expect(rec.output).toEqual(['early', 'late'])
    expect(rec.loaded.steps).toHaveLength(1)

    p.script([{ text: 'recorded' }])
    const wrapped = await recordRun(() => ask(wrap(openaiFor(p)), 'hi'))
    expect(wrapped.output).toBe('recorded')
    expect(wrapped.loaded.steps).toHaveLength(1)
  })
})
