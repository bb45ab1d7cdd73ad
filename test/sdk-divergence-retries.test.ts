import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { HumanMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents'
import { generateText } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInSession } from '../src/engine/context.ts'
import { DivergenceError } from '../src/engine/divergence-error.ts'
import { recordRun } from '../src/engine/internal/test-record-replay.ts'
import { Session } from '../src/engine/session.ts'
import { wrap } from '../src/engine/wrap.ts'
import { type Interceptor, startInterceptor } from '../src/interceptor/index.ts'
import { startTestProvider, type TestProvider } from '../src/interceptor/internal/test-provider.ts'

/**
 * A replay whose request diverges ends the agent's run in one attempt under every SDK the project
 * tests, each with its retries on: crashlab answers the divergence in a form none of them retries, and
 * the run's error is the `DivergenceError`. A network error would be retried with backoff (two more
 * attempts by default for OpenAI, Anthropic and the AI SDK, six for LangChain), and the test would end
 * as a timeout hiding the cause. Attempts are counted where they reach crashlab (the Session's
 * `onRequest` hook sees every one), never timed. No `hosts`: the provider is on loopback, recognised
 * by the shape of its calls.
 */

setTracingDisabled(true)

let p: TestProvider
let interceptor: Interceptor
beforeAll(async () => {
  p = await startTestProvider()
  interceptor = startInterceptor()
})
afterAll(async () => {
  await interceptor.close()
  await p.provider.close()
})

const KEY = 'sk-test-not-a-secret'
const v1 = () => `${p.provider.url}/v1`

/** Each SDK asking one question, its retries left on (or turned on, where they are off by default). */
const SDKS: Array<[string, (question: string) => Promise<unknown>]> = [
  [
    'openai',
    (q) =>
      new OpenAI({ apiKey: KEY, baseURL: v1() }).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: q }],
      }),
  ],
  [
    'openai, wrapped (the session-bound fetch)',
    (q) =>
      wrap(new OpenAI({ apiKey: KEY, baseURL: v1() })).responses.create({ model: 'gpt-4o-mini', input: q }),
  ],
  [
    '@anthropic-ai/sdk',
    (q) =>
      new Anthropic({ apiKey: KEY, baseURL: p.provider.url }).messages.create({
        model: 'claude-test-model',
        max_tokens: 64,
        messages: [{ role: 'user', content: q }],
      }),
  ],
  [
    '@google/genai (retries on)',
    (q) =>
      new GoogleGenAI({
        apiKey: 'AIzaSyTestKeyNotASecret0123456789abcd',
        httpOptions: { baseUrl: p.provider.url, retryOptions: { attempts: 3, initialDelay: 0.05 } },
      }).models.generateContent({ model: 'gemini-2.5-flash', contents: q }),
  ],
  [
    'ai (AI SDK defaults)',
    (q) =>
      generateText({
        model: createOpenAI({ apiKey: KEY, baseURL: v1() }).chat('gpt-4o-mini'),
        prompt: q,
      }),
  ],
  [
    '@langchain/openai',
    (q) =>
      // Two retries rather than the default six, so that the retries of a network error stay short.
      new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: KEY,
        configuration: { baseURL: v1() },
        maxRetries: 2,
      }).invoke([new HumanMessage(q)]),
  ],
  [
    '@openai/agents',
    async (q) => {
      setDefaultOpenAIClient(new OpenAI({ apiKey: KEY, baseURL: v1() }))
      setOpenAIAPI('chat_completions')
      return run(new Agent({ name: 'support', instructions: 'Answer briefly.' }), q)
    },
  ],
]

describe.each(SDKS)('a divergence under %s', (_, ask) => {
  it('fails the run in one attempt, and the run ends with the DivergenceError', {
    timeout: 60_000,
  }, async () => {
    p.script([{ text: 'A17 shipped on Monday.' }])
    const recorded = await recordRun(() => ask('Where is A17?'))
    expect(recorded.loaded.steps.map((s) => s.type)).toEqual(['llm'])
    expect(p.received()).toBe(1)

    p.script([])
    let attempts = 0
    const session = new Session({
      mode: 'replay',
      recorded: recorded.loaded,
      label: 'divergence',
      hooks: {
        onRequest: () => {
          attempts++
          return undefined
        },
      },
    })
    const error = await runInSession(session, () => ask('Where is A18?')).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(attempts).toBe(1)
    expect(p.received()).toBe(0)
    // The agent met an API error naming crashlab's; the run's own error is the divergence.
    expect((error as Error | undefined)?.message).toContain('diverged at step 0')
    await expect(session.finish({ error })).rejects.toBeInstanceOf(DivergenceError)
  })
})
