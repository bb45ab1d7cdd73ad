import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { LlmStep } from '../case/schema/step.ts'
import { runInSession } from '../engine/context.ts'
import { DivergenceError } from '../engine/divergence-error.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { Session } from '../engine/session.ts'
import { wrap } from '../engine/wrap.ts'
import { isCrashlabError } from '../errors.ts'
import { type CountingServer, startCountingServer } from './internal/counting-server.ts'
import { REMOTE_ADDRESSES_ENV } from './internal/loopback.ts'
import { startTestProvider, type TestProvider } from './internal/test-provider.ts'
import { startInterceptor } from './start-interceptor.ts'
import type { Interceptor } from './types.ts'

let p: TestProvider
let other: CountingServer
let interceptor: Interceptor
beforeAll(async () => {
  // 127.0.0.2 stands for a host off the machine: a replay may reach loopback, not remote hosts.
  process.env[REMOTE_ADDRESSES_ENV] = '127.0.0.2'
  p = await startTestProvider()
  other = await startCountingServer('127.0.0.2')
  interceptor = startInterceptor({ hosts: [p.provider.url] })
})
afterAll(async () => {
  delete process.env[REMOTE_ADDRESSES_ENV]
  await interceptor.close()
  await p.provider.close()
  await other.close()
})

const client = () => new OpenAI({ baseURL: `${p.provider.url}/v1`, apiKey: 'sk-test', maxRetries: 0 })
const ask = (openai: OpenAI, question: string) =>
  openai.chat.completions
    .create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: question }] })
    .then((r) => r.choices[0]?.message.content)

describe('sessions through the interceptor', () => {
  it('a wrapped client on an intercepted host is recorded once, not once by wrap and again by the interceptor', async () => {
    const before = p.provider.requests.length
    const { run } = await recordRun(() => ask(wrap(client()), 'Once?'))
    expect(p.provider.requests.length - before).toBe(1)
    expect(run.steps.map((s) => s.type)).toEqual(['llm'])
    const { session } = await replayRun(run, () => ask(wrap(client()), 'Once?'))
    expect(session.run.steps).toHaveLength(1)
    expect(p.provider.requests.length - before).toBe(1)
  })

  it('outside any Session a request to an intercepted host passes through untouched', async () => {
    p.script([{ text: 'live answer' }])
    expect(await ask(client(), 'hello')).toBe('live answer')
    expect(p.received()).toBe(1)
  })

  it('five runs in parallel, each in its own Session, record and replay their own steps', async () => {
    const questions = ['q0', 'q1', 'q2', 'q3', 'q4']
    // Each answer names the question it answers, so that a step served to the wrong run shows.
    const textOf = (request: NormalizedRequest) => {
      const part = request.messages.at(-1)?.parts[0]
      return part?.type === 'text' ? part.text : '?'
    }
    p.script((request) => ({ text: `answer to ${textOf(request)}`, delayMs: 5 }))
    const openai = client()
    const agent = (q: string) => async () => {
      const first = await ask(openai, q)
      const second = await ask(openai, `${q} again`)
      return [first, second]
    }
    const records = await Promise.all(questions.map((q) => recordRun(agent(q))))
    expect(p.received()).toBe(10)
    for (const [i, rec] of records.entries()) {
      expect(rec.output).toEqual([`answer to q${i}`, `answer to q${i} again`])
      const asked = rec.loaded.steps.map((s) => (s as LlmStep).request.normalized?.messages[0]?.parts[0])
      expect(asked).toEqual([
        { type: 'text', text: `q${i}` },
        { type: 'text', text: `q${i} again` },
      ])
    }

    p.script([])
    const replays = await Promise.all(questions.map((q, i) => replayRun(records[i]!.loaded, agent(q))))
    expect(p.received()).toBe(0)
    for (const [i, r] of replays.entries()) {
      expect(r.output).toEqual(records[i]!.output)
      expect((await r.session.finish({ output: null })).steps).toHaveLength(2)
    }
  })

  it('replay never lets a request out: an unrecorded call to an intercepted host is a divergence', async () => {
    p.script([{ text: 'recorded' }])
    const openai = client()
    const rec = await recordRun(() => ask(openai, 'Where is A17?'))
    p.script([])
    const session = new Session({ mode: 'replay', recorded: rec.loaded, label: 'diverging' })
    const failure = await runInSession(session, () => ask(openai, 'Where is A18?')).catch((e: unknown) => e)
    // A refusal the SDK does not retry: one request reached crashlab, none the provider.
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError)
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).headers.get('x-should-retry')).toBe(
      'false',
    )
    expect(p.received()).toBe(0)
    expect(session.errors[0]).toBeInstanceOf(DivergenceError)
  })

  it('a divergence the agent swallows still fails session.finish()', async () => {
    p.script([{ text: 'recorded' }])
    const openai = client()
    const swallowing = async (question: string) => {
      try {
        return await ask(openai, question)
      } catch {
        return 'sorry, try again later'
      }
    }
    const rec = await recordRun(() => swallowing('Where is A17?'))
    p.script([])
    const { output, session } = await replayRun(rec.loaded, () => swallowing('Where is A18?'))
    expect(output).toBe('sorry, try again later')
    await expect(session.finish({ output })).rejects.toSatisfy((e) => isCrashlabError(e, 'E_DIVERGENCE'))
    expect(p.received()).toBe(0)
  })

  it('in replay a request to a remote host fails without a connection, and the Session names it', async () => {
    const rec = await recordRun(async () => null)
    const before = other.connections()
    const { output, session } = await replayRun(rec.loaded, () =>
      fetch(`${other.url}/telemetry`).then(
        (r) => `status ${r.status}`,
        (e: unknown) => `failed: ${(e as Error).message}`,
      ),
    )
    expect(output).toBe('status 400')
    expect(other.connections()).toBe(before)
    const error = session.errors[0]
    expect(isCrashlabError(error, 'E_UNHANDLED_HOST')).toBe(true)
    expect(error?.message).toContain(`${other.url}/telemetry`)
    expect(error?.message).toContain("otherHosts: 'passthrough'")
    await expect(session.finish({ output })).rejects.toBe(error)
  })

  it('while recording, other hosts pass through (the default)', async () => {
    const before = other.connections()
    const rec = await recordRun(() => fetch(`${other.url}/health`).then((r) => r.json()))
    expect(rec.output).toEqual({ ok: true })
    expect(other.connections()).toBeGreaterThan(before)
    expect(rec.loaded.steps).toEqual([])
  })
})
