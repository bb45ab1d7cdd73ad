import net from 'node:net'
import tls from 'node:tls'
import OpenAI from 'openai'
import * as undici from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runInSession } from '../engine/context.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { Session } from '../engine/session.ts'
import { isCrashlabError } from '../errors.ts'
import { guardReplaySockets } from './guard-replay-sockets.ts'
import { type CountingServer, startCountingServer } from './internal/counting-server.ts'
import { REMOTE_ADDRESSES_ENV } from './internal/loopback.ts'
import { startTestProvider, type TestProvider } from './internal/test-provider.ts'
import { ledgerMark, ledgerSince } from './network-ledger.ts'
import { startInterceptor } from './start-interceptor.ts'
import type { Interceptor, InterceptorOptions } from './types.ts'

// The replay rule, counted at the socket: servers that count the TCP connections they accept. 127.0.0.2
// stands for a host off the machine (CRASHLAB_REMOTE_ADDRESSES), so nothing leaves it; each case has a
// live control that shows the counter sees real traffic.

// Taken before any interceptor starts: a client that kept the fetch it found (undici inside Node), which
// crashlab's HTTP interception never sees.
const earlyFetch = globalThis.fetch

let remote: CountingServer
let local: CountingServer
let model: TestProvider
let other: TestProvider
let interceptor: Interceptor | undefined

function restart(options: InterceptorOptions = {}): void {
  void interceptor?.close()
  interceptor = startInterceptor({ hosts: [model.provider.url], ...options })
}

beforeAll(async () => {
  process.env[REMOTE_ADDRESSES_ENV] = '127.0.0.2'
  remote = await startCountingServer('127.0.0.2')
  local = await startCountingServer('127.0.0.1')
  model = await startTestProvider()
  other = await startTestProvider()
  restart()
})
afterAll(async () => {
  delete process.env[REMOTE_ADDRESSES_ENV]
  await interceptor?.close()
  await Promise.all([remote.close(), local.close(), model.provider.close(), other.provider.close()])
})
afterEach(() => restart())

const empty = async () => (await recordRun(async () => null)).loaded
const outcome = (p: Promise<Response>) =>
  p.then(
    (r) => `status ${r.status}`,
    (e: unknown) => `failed: ${(e as Error).message}`,
  )

/**
 * Dials with `connect`, sends a request line once connected (msw 3 connects a socket to a mock first and
 * dials the real host only when it lets the traffic through), and settles with 'answered' when the
 * server answers, or the error's code.
 */
function dial(connect: () => net.Socket): Promise<string> {
  return new Promise((done) => {
    const socket = connect()
    const send = () => socket.write('GET /raw HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n')
    socket.once('connect', send)
    socket.once('data', () => {
      socket.destroy()
      done('answered')
    })
    socket.once('error', (e: Error & { code?: string }) => done(e.code ?? e.message))
    socket.once('close', () => done('closed'))
  })
}

describe('a replay Session: what its cassette does not answer', () => {
  it('a client that kept the fetch it found before the interceptor cannot reach a remote host: msw reads it at the socket', async () => {
    const recorded = await empty()
    const before = remote.connections()
    const { output, session } = await replayRun(recorded, () => outcome(earlyFetch(`${remote.url}/escaped`)))
    // A refusal inside a Session is an answer no SDK retries (see refusalResponse), not a network error.
    expect(output).toBe('status 400')
    expect(remote.connections()).toBe(before)
    expect(session.errors.map((e) => e.code)).toEqual(['E_UNHANDLED_HOST'])
    expect(session.errors[0]?.message).toContain(`127.0.0.2:${remote.port}`)
    expect(session.errors[0]?.message).toContain('allowHosts')

    // Control: the same client in a live Session reaches the server, and the counter sees it.
    const live = await recordRun(() => outcome(earlyFetch(`${remote.url}/escaped`)))
    expect(live.output).toBe('status 200')
    expect(remote.connections()).toBe(before + 1)
  })

  it("the undici package's own fetch() and request() cannot reach a remote host in a replay; live, they do", async () => {
    const recorded = await empty()
    const before = remote.connections()
    // A fresh Agent per call: a pooled socket from an earlier (live) call would never dial again.
    const viaFetch = () =>
      undici.fetch(`${remote.url}/undici-fetch`, { dispatcher: new undici.Agent() }).then(
        (r) => `status ${r.status}`,
        (e: Error) => `failed: ${e.message}`,
      )
    const viaRequest = () =>
      undici.request(`${remote.url}/undici-request`, { dispatcher: new undici.Agent() }).then(
        (r) => `status ${r.statusCode}`,
        (e: Error & { code?: string }) => `failed: ${e.code ?? e.message}`,
      )
    const { output, session } = await replayRun(recorded, async () => [await viaFetch(), await viaRequest()])
    expect(output).toEqual(['status 400', 'status 400'])
    expect(remote.connections()).toBe(before)
    expect(session.errors.map((e) => e.code)).toEqual(['E_UNHANDLED_HOST', 'E_UNHANDLED_HOST'])
    expect(session.errors[0]?.message).toContain('/undici-fetch')
    expect(session.errors[1]?.message).toContain('/undici-request')

    // Control: the same calls in a live Session reach the server, and the counter sees both.
    const live = await recordRun(async () => [await viaFetch(), await viaRequest()])
    expect(live.output).toEqual(['status 200', 'status 200'])
    expect(remote.connections()).toBe(before + 2)
  })

  it('net.connect and tls.connect to a remote address are refused (HTTP by msw, anything else at the socket); live ones connect', async () => {
    const recorded = await empty()
    const before = remote.connections()
    const target = { host: '127.0.0.2', port: remote.port }
    const { output, session } = await replayRun(recorded, async () => [
      await dial(() => net.connect(target)),
      await dial(() => tls.connect({ ...target, rejectUnauthorized: false })),
    ])
    // msw reads the HTTP written to each socket and the replay rule refuses it before any dial: the
    // refusal response is the answer.
    expect(output).toEqual(['answered', 'answered'])
    expect(remote.connections()).toBe(before)
    expect(session.errors.map((e) => e.code)).toEqual(['E_UNHANDLED_HOST', 'E_UNHANDLED_HOST'])

    // A protocol msw cannot read (not HTTP) is judged at the connect by the socket guard.
    const raw = await replayRun(
      recorded,
      () =>
        new Promise<string>((done) => {
          const socket = net.connect(target)
          socket.once('connect', () => socket.write('PING\r\n'))
          socket.once('data', () => {
            socket.destroy()
            done('answered')
          })
          socket.once('error', (e: Error & { code?: string }) => done(e.code ?? e.message))
          socket.once('close', () => done('closed'))
        }),
    )
    expect(raw.output).toBe('closed')
    expect(raw.session.errors.map((e) => e.code)).toEqual(['E_REPLAY_CONNECTION'])
    expect(remote.connections()).toBe(before)

    const live = await recordRun(async () => dial(() => net.connect(target)))
    expect(live.output).toBe('answered')
    expect(remote.connections()).toBe(before + 1)
  })

  it('a request to another loopback server (the app’s own, a local database) passes, and is counted as sent', async () => {
    const recorded = await empty()
    const before = local.connections()
    const mark = ledgerMark()
    const { output, session } = await replayRun(recorded, () => outcome(fetch(`${local.url}/health`)))
    expect(output).toBe('status 200')
    expect(local.connections()).toBe(before + 1)
    expect(session.errors).toEqual([])
    expect(ledgerSince(mark).requests).toEqual([`GET ${local.url}/health`])
  })

  it('a remote request through fetch is refused before any connection (msw sees it), with the fixes named', async () => {
    const recorded = await empty()
    const before = remote.connections()
    const { output, session } = await replayRun(recorded, () => outcome(fetch(`${remote.url}/telemetry`)))
    expect(output).toBe('status 400')
    expect(remote.connections()).toBe(before)
    expect(isCrashlabError(session.errors[0], 'E_UNHANDLED_HOST')).toBe(true)
    expect(session.errors[0]?.message).toContain('allowHosts')

    const live = await recordRun(() => outcome(fetch(`${remote.url}/telemetry`)))
    expect(live.output).toBe('status 200')
    expect(remote.connections()).toBe(before + 1)
  })

  it('a model call to a loopback host that is not listed is recorded live and replayed; one the cassette lacks diverges', async () => {
    const client = new OpenAI({ baseURL: `${other.provider.url}/v1`, apiKey: 'sk-test', maxRetries: 0 })
    const ask = (content: string) => () =>
      client.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content }] }).then(
        (r) => r.choices[0]?.message.content ?? '',
        (e: Error) => `failed: ${e.message.slice(0, 'NNN [crashlab]'.length)}`,
      )
    other.script([{ text: 'live' }])
    const live = await recordRun(ask('hi'))
    expect(live.output).toBe('live')
    expect(other.received()).toBe(1)
    expect(live.loaded.steps.map((s) => s.type)).toEqual(['llm'])

    other.script([])
    const replayed = await replayRun(live.loaded, ask('hi'))
    expect(replayed.output).toBe('live')
    expect(other.received()).toBe(0)
    expect(replayed.session.errors).toEqual([])

    const diverged = await replayRun(live.loaded, ask('something else'))
    expect(diverged.output).toBe('failed: 400 [crashlab]')
    expect(other.received()).toBe(0)
    expect(diverged.session.errors.map((e) => e.code)).toEqual(['E_DIVERGENCE'])
  })

  it('a call the cassette holds on an intercepted remote address is served through msw, not refused at the socket', async () => {
    restart({ hosts: [model.provider.url, remote.url] })
    const before = remote.connections()
    const recorded = await recordRun(() => outcome(fetch(`${remote.url}/v1/models`)))
    expect(recorded.loaded.steps.map((s) => s.type)).toEqual(['http'])
    expect(remote.connections()).toBe(before + 1)
    const { output, session } = await replayRun(recorded.loaded, () =>
      outcome(fetch(`${remote.url}/v1/models`)),
    )
    expect(output).toBe('status 200')
    expect(session.errors).toEqual([])
    expect(remote.connections()).toBe(before + 1)
  })

  it('allowHosts lets a replay reach a named host, through msw and at the socket', async () => {
    restart({ allowHosts: [`127.0.0.2:${remote.port}`] })
    const before = remote.connections()
    const { output, session } = await replayRun(await empty(), async () => [
      await outcome(fetch(`${remote.url}/db`)),
      await outcome(earlyFetch(`${remote.url}/db`)),
    ])
    expect(output).toEqual(['status 200', 'status 200'])
    expect(session.errors).toEqual([])
    expect(remote.connections()).toBe(before + 2)
  })

  it('a fork keeps its network once live, and refuses it in its replayed prefix', async () => {
    model.script([{ text: 'recorded' }])
    const client = new OpenAI({ baseURL: `${model.provider.url}/v1`, apiKey: 'sk-test', maxRetries: 0 })
    const ask = () =>
      client.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }] })
    const recorded = await recordRun(async () => {
      await ask()
      await ask()
    })
    const before = remote.connections()
    model.script([{ text: 'live' }])
    const session = new Session({ mode: 'replay', recorded: recorded.loaded, forkAt: 1 })
    const output = await runInSession(session, async () => {
      const prefix = await outcome(earlyFetch(`${remote.url}/prefix`))
      await ask() // step 0: replayed
      await ask() // step 1: the fork step, live
      const after = await outcome(earlyFetch(`${remote.url}/live`))
      return [prefix, after]
    })
    expect(output).toEqual(['status 400', 'status 200'])
    expect(session.mode).toBe('record')
    expect(remote.paths().slice(-1)).toEqual(['/live'])
    expect(remote.connections()).toBe(before + 1)
  })
})

describe('outside any Session', () => {
  it("in replay mode (outsideSession: 'replay') a remote request is refused with a warning naming the URL and allowHosts", async () => {
    restart({ outsideSession: 'replay' })
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    const before = remote.connections()
    try {
      expect(await outcome(fetch(`${remote.url}/v1/traces/ingest`))).toBe('failed: fetch failed')
      expect(await outcome(earlyFetch(`${remote.url}/timer`))).toBe('failed: fetch failed')
      expect(await outcome(fetch(`${local.url}/own-server`))).toBe('status 200')
      await new Promise((r) => setImmediate(r))
    } finally {
      process.off('warning', onWarning)
    }
    expect(remote.connections()).toBe(before)
    expect(warnings.find((w) => w.includes(`${remote.url}/v1/traces/ingest`))).toContain('allowHosts')
    expect(warnings.find((w) => w.includes(`127.0.0.2:${remote.port}`))).toContain('allowHosts')

    // Control: a live Session in the same process keeps its network.
    const live = await recordRun(() => outcome(fetch(`${remote.url}/v1/traces/ingest`)))
    expect(live.output).toBe('status 200')
    expect(remote.connections()).toBe(before + 1)
  })

  it('by default (not replay mode) requests outside a Session pass', async () => {
    const before = remote.connections()
    expect(await outcome(fetch(`${remote.url}/module-level`))).toBe('status 200')
    expect(await outcome(earlyFetch(`${remote.url}/module-level`))).toBe('status 200')
    expect(remote.connections()).toBe(before + 2)
  })

  it('guardReplaySockets alone (no msw server) refuses escaped connections and releases cleanly', async () => {
    await interceptor?.close()
    interceptor = undefined
    const before = remote.connections()
    const release = guardReplaySockets({ outsideSession: 'replay' })
    try {
      expect(await dial(() => net.connect({ host: '127.0.0.2', port: remote.port }))).toBe(
        'E_REPLAY_CONNECTION',
      )
    } finally {
      release()
    }
    expect(remote.connections()).toBe(before)
    expect(await dial(() => net.connect({ host: '127.0.0.2', port: remote.port }))).toBe('answered')
    expect(remote.connections()).toBe(before + 1)
  })
})
