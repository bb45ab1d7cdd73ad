import Anthropic, {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  InternalServerError,
  RateLimitError,
} from '@anthropic-ai/sdk'
import { ServiceUnavailableError } from '@anthropic-ai/sdk/error'
import { describe, expect, it } from 'vitest'
import type { ScriptedTurn } from '../src/testing/index.ts'
import { QUESTION } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * Each scripted fault reaches the Anthropic SDK (v1) as the SDK's own error, or as its retry
 * behaviour, exactly as the real API's failures do.
 */

const server = useScriptedProvider()
const LONG = 'One two three four five six seven eight nine ten eleven twelve.'
const PARAMS = {
  model: 'claude-sonnet-4-6',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: QUESTION }],
}

function client(options: { maxRetries?: number; timeout?: number } = {}): Anthropic {
  return new Anthropic({
    apiKey: 'sk-ant-test',
    baseURL: server.url,
    maxRetries: 0,
    timeout: 5_000,
    ...options,
  })
}

const ask = (anthropic = client()) => anthropic.messages.create(PARAMS)

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error('expected the call to fail, and it succeeded'),
    (err: unknown) => err,
  )

/** Reads a raw stream; returns the text read and what ended it (undefined for a clean end). */
async function readStream(turn: ScriptedTurn): Promise<{ text: string; types: string[]; error: unknown }> {
  server.script(turn)
  let text = ''
  const types: string[] = []
  try {
    const stream = await client().messages.create({ ...PARAMS, stream: true })
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text
    }
    return { text, types, error: undefined }
  } catch (error) {
    return { text, types, error }
  }
}

describe('anthropic faults', () => {
  it('429 with retry-after: RateLimitError when retries are off, with the API`s error type', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 7 } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(RateLimitError)
    expect((err as RateLimitError).status).toBe(429)
    expect((err as RateLimitError).headers.get('retry-after')).toBe('7')
    expect((err as RateLimitError).error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    })
  })

  it('429 then an answer: the SDK retries after retry-after and the call succeeds', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 0 } }, { text: 'After the retry.' })
    const message = await ask(client({ maxRetries: 2 }))
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('After the retry.')
    const calls = server.calls()
    expect(calls.map((c) => c.answer?.status)).toEqual([429, 200])
    expect(calls.map((c) => c.headers['x-stainless-retry-count'])).toEqual(['0', '1'])
  })

  it('429 on every attempt: RateLimitError after maxRetries + 1 calls', async () => {
    const limit: ScriptedTurn = { fault: { type: 'rate_limit', retryAfter: 0 } }
    server.script(limit, limit)
    expect(await failure(ask(client({ maxRetries: 1 })))).toBeInstanceOf(RateLimitError)
    expect(server.calls()).toHaveLength(2)
  })

  it.each([500, 502, 503] as const)('%i: InternalServerError with that status', async (status) => {
    server.script({ fault: { type: 'server_error', status } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(InternalServerError)
    expect((err as InternalServerError).status).toBe(status)
    // v1 has a subclass for 503 (and 501, 504, 529); the others are the base class.
    expect(err instanceof ServiceUnavailableError).toBe(status === 503)
    expect((err as InternalServerError).message).toMatch(status === 500 ? /Internal server error/ : /nginx/)
  })

  it('a 503 then an answer: 5xx is retried', async () => {
    server.script({ fault: { type: 'server_error', status: 503 } }, { text: 'Back up.' })
    const message = await ask(client({ maxRetries: 1 }))
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('Back up.')
    expect(server.calls().map((c) => c.answer?.status)).toEqual([503, 200])
  })

  it('a reset connection: APIConnectionError, not a timeout', async () => {
    server.script({ fault: { type: 'reset' } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(APIConnectionError)
    expect(err).not.toBeInstanceOf(APIConnectionTimeoutError)
  })

  it('no answer within the SDK timeout: APIConnectionTimeoutError', async () => {
    server.script({ fault: { type: 'timeout' } })
    const started = Date.now()
    expect(await failure(ask(client({ timeout: 300 })))).toBeInstanceOf(APIConnectionTimeoutError)
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it('a connection dropped before any answer (timeout with afterMs): APIConnectionError', async () => {
    server.script({ fault: { type: 'timeout', afterMs: 50 } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(APIConnectionError)
    expect(err).not.toBeInstanceOf(APIConnectionTimeoutError)
  })

  it('malformed JSON in a plain answer: the SyntaxError of JSON.parse', async () => {
    server.script({ text: 'hi', fault: { type: 'malformed_json' } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(SyntaxError)
    expect(err).not.toBeInstanceOf(APIError)
  })

  it('malformed JSON in a stream: the iterator throws a SyntaxError before any event', async () => {
    const { types, error } = await readStream({ text: 'hi', fault: { type: 'malformed_json' } })
    expect(error).toBeInstanceOf(SyntaxError)
    expect(types).toEqual([])
  })

  it('a cut stream: the raw iterator yields what arrived, then throws undici`s "terminated" TypeError', async () => {
    const { text, types, error } = await readStream({
      text: LONG,
      chunkSize: 4,
      fault: { type: 'cut_stream', afterEvents: 5 },
    })
    expect(types.length).toBeGreaterThan(2)
    expect(types.length).toBeLessThanOrEqual(5)
    expect(types[0]).toBe('message_start')
    expect(types).not.toContain('message_stop')
    expect(LONG.startsWith(text)).toBe(true)
    expect(text.length).toBeLessThan(LONG.length)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe('terminated')
  })

  it('a cut stream under the stream() helper: finalMessage() rejects with an AnthropicError', async () => {
    server.script({ text: LONG, chunkSize: 4, fault: { type: 'cut_stream', afterEvents: 5 } })
    const stream = client().messages.stream(PARAMS)
    const deltas: string[] = []
    stream.on('text', (delta) => deltas.push(delta))
    const err = await failure(stream.finalMessage())
    expect(err).toBeInstanceOf(AnthropicError)
    expect(err).not.toBeInstanceOf(APIError)
    expect(deltas.length).toBeGreaterThan(0)
    expect(LONG.startsWith(deltas.join(''))).toBe(true)
  })
})
