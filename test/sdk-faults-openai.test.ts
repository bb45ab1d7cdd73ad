import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  InternalServerError,
  OpenAIError,
  RateLimitError,
} from 'openai'
import { describe, expect, it } from 'vitest'
import type { ScriptedTurn } from '../src/testing/index.ts'
import { QUESTION } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * Each scripted fault reaches the OpenAI SDK (v7) as the SDK's own error, or as its retry behaviour,
 * exactly as the real API's failures do. What each case expects was first checked against a bare
 * node:http server sending the same bytes, so these tests pin the SDK's behaviour, not the provider's.
 */

const server = useScriptedProvider()
const MODEL = 'gpt-4o-mini'
const LONG = 'One two three four five six seven eight nine ten eleven twelve.'

function client(options: { maxRetries?: number; timeout?: number } = {}): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
    timeout: 5_000,
    ...options,
  })
}

const ask = (openai = client()) =>
  openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: QUESTION }] })

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error('expected the call to fail, and it succeeded'),
    (err: unknown) => err,
  )

/** Reads a raw chat stream; returns the text read and what ended it (undefined for a clean end). */
async function readChatStream(turn: ScriptedTurn): Promise<{ text: string; error: unknown }> {
  server.script(turn)
  let text = ''
  try {
    const stream = await client().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
    })
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    return { text, error: undefined }
  } catch (error) {
    return { text, error }
  }
}

describe('openai faults', () => {
  it('429 with retry-after: RateLimitError when retries are off, carrying the status and headers', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 7 } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(RateLimitError)
    expect((err as RateLimitError).status).toBe(429)
    expect((err as RateLimitError).headers.get('retry-after')).toBe('7')
    expect((err as RateLimitError).message).toContain('Rate limit reached')
  })

  it('429 then an answer: the SDK waits retry-after and retries, and the call succeeds', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 0 } }, { text: 'After the retry.' })
    const completion = await ask(client({ maxRetries: 2 }))
    expect(completion.choices[0]?.message.content).toBe('After the retry.')
    const calls = server.calls()
    expect(calls.map((c) => c.answer?.status)).toEqual([429, 200])
    expect(calls.map((c) => c.headers['x-stainless-retry-count'])).toEqual(['0', '1'])
  })

  it('429 on every attempt: RateLimitError after maxRetries + 1 calls', async () => {
    const limit: ScriptedTurn = { fault: { type: 'rate_limit', retryAfter: 0 } }
    server.script(limit, limit, limit)
    const err = await failure(ask(client({ maxRetries: 2 })))
    expect(err).toBeInstanceOf(RateLimitError)
    expect(server.calls()).toHaveLength(3)
  })

  it.each([500, 502, 503] as const)('%i: InternalServerError with that status', async (status) => {
    server.script({ fault: { type: 'server_error', status } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(InternalServerError)
    expect((err as InternalServerError).status).toBe(status)
    // 500 is the API's own JSON error; 502 and 503 are the gateway's HTML page, kept as the message.
    expect((err as InternalServerError).message).toMatch(status === 500 ? /The server had an error/ : /nginx/)
  })

  it('a 502 then an answer: 5xx is retried like the real API', async () => {
    server.script({ fault: { type: 'server_error', status: 502 } }, { text: 'Back up.' })
    const completion = await ask(client({ maxRetries: 1 }))
    expect(completion.choices[0]?.message.content).toBe('Back up.')
    expect(server.calls().map((c) => c.answer?.status)).toEqual([502, 200])
  })

  it('a reset connection: APIConnectionError, not a timeout', async () => {
    server.script({ fault: { type: 'reset' } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(APIConnectionError)
    expect(err).not.toBeInstanceOf(APIConnectionTimeoutError)
    expect((err as APIConnectionError).message).toBe('Connection error.')
  })

  it('no answer within the SDK timeout: APIConnectionTimeoutError', async () => {
    server.script({ fault: { type: 'timeout' } })
    const started = Date.now()
    const err = await failure(ask(client({ timeout: 300 })))
    expect(err).toBeInstanceOf(APIConnectionTimeoutError)
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it('a timeout then an answer: the SDK retries a timed-out call', async () => {
    server.script({ fault: { type: 'timeout' } }, { text: 'Second try.' })
    const completion = await ask(client({ timeout: 300, maxRetries: 1 }))
    expect(completion.choices[0]?.message.content).toBe('Second try.')
    expect(server.calls()).toHaveLength(2)
  })

  it('malformed JSON in a plain answer: the SDK throws the SyntaxError of JSON.parse', async () => {
    server.script({ text: 'hi', fault: { type: 'malformed_json' } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(SyntaxError)
    expect(err).not.toBeInstanceOf(APIError)
  })

  it('malformed JSON in a stream: the iterator throws a SyntaxError', async () => {
    const { error } = await readChatStream({ text: 'hi', fault: { type: 'malformed_json' } })
    expect(error).toBeInstanceOf(SyntaxError)
    expect((error as Error).message).toContain('malformed server-sent event JSON')
  })

  it('a cut stream: the raw iterator yields what arrived, then throws undici`s "terminated" TypeError', async () => {
    const { text, error } = await readChatStream({
      text: LONG,
      chunkSize: 4,
      fault: { type: 'cut_stream', afterEvents: 3 },
    })
    // The first event opens the message (role, first delta); three events carry 12 characters at most.
    expect(text.length).toBeGreaterThan(0)
    expect(LONG.startsWith(text)).toBe(true)
    expect(text.length).toBeLessThan(LONG.length)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe('terminated')
    expect(error).not.toBeInstanceOf(OpenAIError)
  })

  it('a cut stream under the stream() helper: an OpenAIError, the partial text seen as deltas', async () => {
    server.script({ text: LONG, chunkSize: 4, fault: { type: 'cut_stream', afterEvents: 3 } })
    const runner = client().chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: QUESTION }],
    })
    const deltas: string[] = []
    runner.on('content.delta', ({ delta }) => deltas.push(delta))
    const err = await failure(runner.finalChatCompletion())
    expect(err).toBeInstanceOf(OpenAIError)
    expect(err).not.toBeInstanceOf(APIError)
    expect(LONG.startsWith(deltas.join(''))).toBe(true)
    expect(deltas.length).toBeGreaterThan(0)
  })

  it('a cut Responses stream: the raw iterator throws after the events that arrived', async () => {
    server.script({ text: LONG, chunkSize: 4, fault: { type: 'cut_stream', afterEvents: 5 } })
    const types: string[] = []
    const err = await failure(
      (async () => {
        const stream = await client().responses.create({ model: MODEL, input: QUESTION, stream: true })
        for await (const event of stream) types.push(event.type)
      })(),
    )
    expect(types).toHaveLength(5)
    expect(types[0]).toBe('response.created')
    expect(types).not.toContain('response.completed')
    expect(err).toBeInstanceOf(TypeError)
    expect((err as TypeError).message).toBe('terminated')
  })

  it('a cut Responses stream under the stream() helper: finalResponse() rejects with an OpenAIError', async () => {
    server.script({ text: LONG, chunkSize: 4, fault: { type: 'cut_stream', afterEvents: 5 } })
    const err = await failure(client().responses.stream({ model: MODEL, input: QUESTION }).finalResponse())
    expect(err).toBeInstanceOf(OpenAIError)
    expect(err).not.toBeInstanceOf(APIError)
  })
})
