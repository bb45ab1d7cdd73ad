import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { fetch as undiciFetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import type { LlmStep, ToolStep } from '../case/schema/step.ts'
import { recordRun, replayRun } from '../engine/internal/test-record-replay.ts'
import { tool } from '../engine/tool.ts'
import { wrap } from '../engine/wrap.ts'
import { isCrashlabError } from '../errors.ts'
import { startTestProvider, type TestProvider } from '../interceptor/internal/test-provider.ts'
import { startInterceptor } from '../interceptor/start-interceptor.ts'
import type { Interceptor } from '../interceptor/types.ts'
import type { Fault } from './faults.ts'
import { crashCells, faultInjection } from './inject.ts'

// A fault in place of one recorded step's answer, in a replay: real SDK clients, recorded over real HTTP
// against the scripted provider, replayed with the provider untouched (its request count stays 0).
let p: TestProvider
let interceptor: Interceptor
beforeAll(async () => {
  p = await startTestProvider()
  interceptor = startInterceptor({ hosts: [p.provider.url] })
})
afterAll(async () => {
  await interceptor.close()
  await p.provider.close()
})

const ANSWER = 'A17 shipped on Monday.'

/** One agent per wire API: a model call (streamed or not), with the SDK's retries as given. */
const agents = {
  'openai-chat': (retries: number, stream: boolean) => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${p.provider.url}/v1`, maxRetries: retries })
    return async () => {
      const messages = [{ role: 'user' as const, content: 'Where is A17?' }]
      if (!stream)
        return (await client.chat.completions.create({ model: 'gpt-5-mini', messages })).choices[0]?.message
          .content
      let text = ''
      for await (const chunk of await client.chat.completions.create({
        model: 'gpt-5-mini',
        messages,
        stream: true,
      }))
        text += chunk.choices[0]?.delta.content ?? ''
      return text
    }
  },
  'openai-responses': (retries: number, stream: boolean) => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${p.provider.url}/v1`, maxRetries: retries })
    return async () => {
      if (!stream)
        return (await client.responses.create({ model: 'gpt-5-mini', input: 'Where is A17?' })).output_text
      let text = ''
      for await (const event of await client.responses.create({
        model: 'gpt-5-mini',
        input: 'Where is A17?',
        stream: true,
      }))
        if (event.type === 'response.output_text.delta') text += event.delta
      return text
    }
  },
  'anthropic-messages': (retries: number, stream: boolean) => {
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: p.provider.url, maxRetries: retries })
    const params = {
      model: 'claude-test',
      max_tokens: 64,
      messages: [{ role: 'user' as const, content: 'Where is A17?' }],
    }
    return async () => {
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params)
      return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    }
  },
  gemini: (retries: number, stream: boolean) => {
    const client = new GoogleGenAI({
      apiKey: 'gm-test',
      httpOptions: {
        baseUrl: p.provider.url,
        ...(retries > 0 ? { retryOptions: { attempts: retries + 1, initialDelay: 0, maxDelay: 0 } } : {}),
      },
    })
    const params = { model: 'gemini-2.5-flash', contents: 'Where is A17?' }
    return async () => {
      if (!stream) return (await client.models.generateContent(params)).text
      let text = ''
      for await (const chunk of await client.models.generateContentStream(params)) text += chunk.text ?? ''
      return text
    }
  },
} as const

type Api = keyof typeof agents
const APIS = Object.keys(agents) as Api[]

async function recorded(api: Api, stream: boolean): Promise<Run> {
  p.script([{ text: ANSWER, chunkSize: 6 }])
  const rec = await recordRun(agents[api](0, stream))
  expect(rec.output).toBe(ANSWER)
  p.script([])
  return rec.loaded
}

async function crash<T>(run: Run, fault: Fault, atStep: number, agent: () => Promise<T>) {
  let error: unknown
  let output: T | undefined
  const { session } = await replayRun(
    run,
    async () => {
      try {
        output = await agent()
      } catch (e) {
        error = e
      }
    },
    { inject: faultInjection(fault, atStep), allowUnused: true },
  )
  const variant = await session.finish({ output: null })
  return { output, error, variant, session }
}

describe.each(APIS)('%s: a fault at a recorded model call', (api) => {
  it.each([false, true])(
    'streamed %s: a 429 the SDK retries is answered from the cassette, with no request sent',
    async (stream) => {
      const run = await recorded(api, stream)
      const { output, error, variant } = await crash(run, { kind: 'rate_limit' }, 0, agents[api](1, stream))
      expect(error).toBeUndefined()
      expect(output).toBe(ANSWER)
      expect(p.received()).toBe(0)
      // The fault's exchange is a step of the run, then the recorded answer.
      const steps = variant.steps as LlmStep[]
      expect(steps.map((s) => s.response?.wire.status)).toEqual([429, 200])
      expect(steps[0]?.error).toMatchObject({ name: expect.any(String) })
      expect(variant.links.crashOf).toEqual({ run: run.id, step: 0, fault: { kind: 'rate_limit' } })
    },
    20_000,
  )

  it('a timeout reaches the SDK as its own timeout error, at once', async () => {
    const run = await recorded(api, false)
    const started = performance.now()
    const { error, variant } = await crash(run, { kind: 'timeout' }, 0, agents[api](0, false))
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(p.received()).toBe(0)
    const text = `${(error as Error)?.name} ${(error as Error)?.message} ${String((error as Error)?.cause ?? '')}`
    expect(text).toMatch(/time(d)? ?out/i)
    expect(variant.steps[0]?.error).not.toBeNull()
  })

  it('a stream cut after one chunk ends the streamed answer with a network error, and the step says so', async () => {
    const run = await recorded(api, true)
    const { output, error, variant } = await crash(
      run,
      { kind: 'stream_cut', afterChunks: 1 },
      0,
      agents[api](0, true),
    )
    expect(output).toBeUndefined()
    expect(error).toBeDefined()
    expect(p.received()).toBe(0)
    const step = variant.steps[0] as LlmStep
    expect(step.response?.wire.chunks?.length).toBe(1)
    expect(step.response?.incomplete).toBe(true)
  })
})

describe('the other paths a call takes', () => {
  it('through MSW (a client on the undici package, which the fast path does not see): a 502 page, then the recording', async () => {
    const run = await recorded('openai-chat', false)
    const client = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${p.provider.url}/v1`,
      maxRetries: 1,
      fetch: undiciFetch as unknown as typeof fetch,
    })
    const agent = async () =>
      (
        await client.chat.completions.create({
          model: 'gpt-5-mini',
          messages: [{ role: 'user', content: 'Where is A17?' }],
        })
      ).choices[0]?.message.content
    const { output, variant } = await crash(run, { kind: 'gateway_html', status: 502 }, 0, agent)
    expect(output).toBe(ANSWER)
    expect(p.received()).toBe(0)
    expect((variant.steps[0] as LlmStep).response?.wire.status).toBe(502)
  }, 20_000)

  it('through wrap(client): a timeout the SDK retries, then the recording', async () => {
    p.script([{ text: ANSWER }])
    const make = (retries: number) =>
      wrap(new OpenAI({ apiKey: 'sk-test', baseURL: `${p.provider.url}/v1`, maxRetries: retries }))
    const agentOf = (client: OpenAI) => async () =>
      (
        await client.chat.completions.create({
          model: 'gpt-5-mini',
          messages: [{ role: 'user', content: 'Where is A17?' }],
        })
      ).choices[0]?.message.content
    const rec = await recordRun(agentOf(make(0)))
    p.script([])
    const { output, variant } = await crash(rec.loaded, { kind: 'timeout' }, 0, agentOf(make(1)))
    expect(output).toBe(ANSWER)
    expect(p.received()).toBe(0)
    expect(variant.steps.map((s) => s.error === null)).toEqual([false, true])
  }, 20_000)
})

describe('a fault at a tool() call', () => {
  const calls: string[] = []
  const getOrder = tool(
    async (id: string) => {
      calls.push(id)
      return { id, status: 'shipped' }
    },
    { name: 'get_order', sideEffects: false },
  )
  /** Tries the tool twice before giving up: a retry of the same call. */
  const agent = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await getOrder('A17')
      } catch (error) {
        if (attempt === 2) throw error
      }
    }
  }

  it('the tool throws in place of its recorded result, never runs, and the retry gets the recording', async () => {
    const rec = await recordRun(agent)
    calls.length = 0
    const { output, variant } = await crash(
      rec.loaded,
      { kind: 'tool_throw', message: 'ECONNREFUSED orders-db' },
      0,
      agent,
    )
    expect(output).toEqual({ id: 'A17', status: 'shipped' })
    expect(calls).toEqual([])
    const steps = variant.steps as ToolStep[]
    expect(steps.map((s) => s.error?.message ?? 'ok')).toEqual(['ECONNREFUSED orders-db', 'ok'])
  })

  it('an HTML page as the result reaches the agent as the result', async () => {
    const rec = await recordRun(agent)
    const { output } = await crash(rec.loaded, { kind: 'tool_html_error' }, 0, agent)
    expect(String(output)).toMatch(/<html/i)
  })
})

describe('crashCells', () => {
  it('pairs model faults with model calls and tool faults with tool calls, and names a step out of range', async () => {
    p.script([{ text: ANSWER }])
    const getOrder = tool(async () => ({ ok: true }), { name: 'get_order', sideEffects: false })
    const chat = agents['openai-chat'](0, false)
    const rec = await recordRun(async () => {
      await getOrder()
      return chat()
    })
    p.script([])
    const cells = crashCells(rec.loaded, [{ kind: 'rate_limit' }, { kind: 'tool_empty' }])
    expect(cells).toEqual([
      { step: 0, fault: { kind: 'tool_empty' } },
      { step: 1, fault: { kind: 'rate_limit' } },
    ])
    let error: unknown
    try {
      crashCells(rec.loaded, [{ kind: 'rate_limit' }], [7])
    } catch (e) {
      error = e
    }
    expect(isCrashlabError(error, 'E_FAULT_INVALID')).toBe(true)
    expect((error as Error).message).toContain('there is no step 7')
  })
})
