import { createOpenAI } from '@ai-sdk/openai'
import { APICallError, generateText, JSONParseError, RetryError, streamText } from 'ai'
import { describe, expect, it } from 'vitest'
import type { ScriptedTurn } from '../src/testing/index.ts'
import { QUESTION } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * Each scripted fault reaches the Vercel AI SDK (v7, @ai-sdk/openai) as the SDK's own error, or as its
 * retry behaviour. The AI SDK wraps HTTP and transport failures in `APICallError` and, once it has
 * retried, in `RetryError`; its own `timeout` aborts with the platform's TimeoutError.
 */

const server = useScriptedProvider()
const MODEL = 'gpt-4o-mini'
const LONG = 'One two three four five six seven eight nine ten eleven twelve.'

const chat = () => createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` }).chat(MODEL)
const responses = () => createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` }).responses(MODEL)

const ask = (options: { maxRetries?: number; timeout?: number } = {}) =>
  generateText({ model: chat(), prompt: QUESTION, maxRetries: 0, timeout: 5_000, ...options })

const failure = (promise: PromiseLike<unknown>): Promise<unknown> =>
  Promise.resolve(promise).then(
    () => new Error('expected the call to fail, and it succeeded'),
    (err: unknown) => err,
  )

/** Streams one scripted turn; returns the text, the errors reported to onError, and what the stream threw. */
async function stream(turn: ScriptedTurn, model = chat()) {
  server.script(turn)
  const errors: unknown[] = []
  const result = streamText({
    model,
    prompt: QUESTION,
    maxRetries: 0,
    timeout: 5_000,
    onError: ({ error }) => void errors.push(error),
  })
  let text = ''
  const thrown = await failure(
    (async () => {
      for await (const delta of result.textStream) text += delta
    })(),
  )
  return { text, errors, thrown, finishReason: result.finishReason }
}

describe('ai faults', () => {
  it('429 with retries off: APICallError with status 429, retryable, carrying retry-after', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 7 } })
    const err = await failure(ask())
    expect(APICallError.isInstance(err)).toBe(true)
    expect(err).toMatchObject({ statusCode: 429, isRetryable: true })
    expect((err as APICallError).responseHeaders?.['retry-after']).toBe('7')
  })

  it('429 then an answer: the SDK retries (honouring retry-after) and the call succeeds', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 0 } }, { text: 'After the retry.' })
    const result = await ask({ maxRetries: 2 })
    expect(result.text).toBe('After the retry.')
    expect(server.calls().map((c) => c.answer?.status)).toEqual([429, 200])
  })

  it('429 on every attempt: RetryError (maxRetriesExceeded) wrapping one APICallError per attempt', async () => {
    const limit: ScriptedTurn = { fault: { type: 'rate_limit', retryAfter: 0 } }
    server.script(limit, limit, limit)
    const err = await failure(ask({ maxRetries: 2 }))
    expect(RetryError.isInstance(err)).toBe(true)
    expect((err as RetryError).reason).toBe('maxRetriesExceeded')
    expect((err as RetryError).errors.map((e) => APICallError.isInstance(e) && e.statusCode)).toEqual([
      429, 429, 429,
    ])
    expect(server.calls()).toHaveLength(3)
  })

  it.each([500, 502, 503] as const)('%i: APICallError with that status', async (status) => {
    server.script({ fault: { type: 'server_error', status } })
    const err = await failure(ask())
    expect(APICallError.isInstance(err)).toBe(true)
    expect(err).toMatchObject({ statusCode: status, isRetryable: true })
    expect((err as APICallError).responseBody).toMatch(status === 500 ? /"server_error"/ : /nginx/)
  })

  it('a reset connection: APICallError "Cannot connect to API", retryable, with no status', async () => {
    server.script({ fault: { type: 'reset' } })
    const err = await failure(ask())
    expect(APICallError.isInstance(err)).toBe(true)
    expect((err as APICallError).message).toMatch(/^Cannot connect to API/)
    expect(err).toMatchObject({ statusCode: undefined, isRetryable: true })
  })

  it('no answer within the SDK timeout: a TimeoutError (the abort reason), not an APICallError', async () => {
    server.script({ fault: { type: 'timeout' } })
    const started = Date.now()
    const err = await failure(ask({ timeout: 300 }))
    expect((err as Error).name).toBe('TimeoutError')
    expect(APICallError.isInstance(err)).toBe(false)
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it('malformed JSON: APICallError "Invalid JSON response" caused by a JSONParseError', async () => {
    server.script({ text: 'hi', fault: { type: 'malformed_json' } })
    const err = await failure(ask())
    expect(APICallError.isInstance(err)).toBe(true)
    expect((err as APICallError).message).toBe('Invalid JSON response')
    expect(JSONParseError.isInstance((err as APICallError).cause)).toBe(true)
  })

  it.each([
    ['chat', chat, 'stop'],
    ['responses', responses, 'error'],
  ] as const)(
    'malformed JSON in a %s stream: onError gets a JSONParseError, and the stream reads on',
    async (_, model, finish) => {
      // The scripted fault breaks only the first event; the AI SDK skips it and reads the rest.
      const { text, errors, thrown, finishReason } = await stream(
        { text: 'hi', fault: { type: 'malformed_json' } },
        model(),
      )
      expect(errors.map((e) => JSONParseError.isInstance(e))).toEqual([true])
      expect(thrown).toBeInstanceOf(Error)
      expect((thrown as Error).message).toBe('expected the call to fail, and it succeeded')
      expect(text).toBe('hi')
      expect(await finishReason).toBe(finish)
    },
  )

  it.each([
    ['chat', chat],
    ['responses', responses],
  ] as const)(
    'a cut %s stream: the partial text, then textStream throws an APICallError (cause: terminated)',
    async (_, model) => {
      const { text, errors, thrown, finishReason } = await stream(
        { text: LONG, chunkSize: 4, fault: { type: 'cut_stream', afterEvents: 5 } },
        model(),
      )
      expect(text.length).toBeGreaterThan(0)
      expect(LONG.startsWith(text)).toBe(true)
      expect(text.length).toBeLessThan(LONG.length)
      expect(APICallError.isInstance(thrown)).toBe(true)
      expect((thrown as APICallError).message).toBe('Failed to process successful response')
      expect(((thrown as APICallError).cause as Error).message).toBe('terminated')
      // Not reported to onError: the failure surfaces through the stream and the result's promises.
      expect(errors).toEqual([])
      expect(APICallError.isInstance(await failure(finishReason))).toBe(true)
    },
  )
})
