import { ApiError, GoogleGenAI, type HttpOptions } from '@google/genai'
import { describe, expect, it } from 'vitest'
import type { ScriptedTurn } from '../src/testing/index.ts'
import { QUESTION } from './helpers/refund.ts'
import { useScriptedProvider } from './helpers/scripted-harness.ts'

/**
 * Each scripted fault reaches @google/genai as the SDK's own error, as the real API's failures do.
 * Unlike the OpenAI and Anthropic SDKs, @google/genai does not retry unless `httpOptions.retryOptions`
 * asks it to, and it wraps no transport error: a reset, a timeout or a cut stream reach the caller as
 * the `fetch` error itself.
 */

const server = useScriptedProvider()
const MODEL = 'gemini-2.5-flash'
const LONG = 'One two three four five six seven eight nine ten eleven twelve.'

function client(options: Partial<HttpOptions> = {}): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: 'test-key',
    httpOptions: { baseUrl: server.url, timeout: 5_000, ...options },
  })
}

const ask = (genai = client()) => genai.models.generateContent({ model: MODEL, contents: QUESTION })

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error('expected the call to fail, and it succeeded'),
    (err: unknown) => err,
  )

/** Reads a stream; returns the text read and what ended it (undefined for a clean end). */
async function readStream(turn: ScriptedTurn): Promise<{ text: string; error: unknown }> {
  server.script(turn)
  let text = ''
  try {
    for await (const chunk of await client().models.generateContentStream({
      model: MODEL,
      contents: QUESTION,
    }))
      text += chunk.text ?? ''
    return { text, error: undefined }
  } catch (error) {
    return { text, error }
  }
}

describe('gemini faults', () => {
  it('429: ApiError with status 429 and the RESOURCE_EXHAUSTED body, with no retry by default', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 0 } }, { text: 'never asked' })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(429)
    expect((err as ApiError).message).toContain('RESOURCE_EXHAUSTED')
    expect(server.calls()).toHaveLength(1)
  })

  it('429 then an answer, with retryOptions: the SDK retries and the call succeeds', async () => {
    server.script({ fault: { type: 'rate_limit', retryAfter: 0 } }, { text: 'After the retry.' })
    const response = await ask(client({ retryOptions: { attempts: 3, initialDelay: 0.01, jitter: 0 } }))
    expect(response.text).toBe('After the retry.')
    expect(server.calls().map((c) => c.answer?.status)).toEqual([429, 200])
  })

  it('429 on every attempt, with retryOptions: ApiError 429 after `attempts` calls', async () => {
    const limit: ScriptedTurn = { fault: { type: 'rate_limit', retryAfter: 0 } }
    server.script(limit, limit)
    const err = await failure(ask(client({ retryOptions: { attempts: 2, initialDelay: 0.01, jitter: 0 } })))
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(429)
    expect(server.calls()).toHaveLength(2)
  })

  it.each([500, 502, 503] as const)('%i: ApiError with that status', async (status) => {
    server.script({ fault: { type: 'server_error', status } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(status)
    // The SDK wraps a body that is not JSON (the gateway's HTML) in an error object of its own.
    expect((err as ApiError).message).toMatch(status === 500 ? /INTERNAL/ : /nginx/)
  })

  it('a reset connection: the TypeError of fetch ("fetch failed"), not an ApiError', async () => {
    server.script({ fault: { type: 'reset' } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(TypeError)
    expect(err).not.toBeInstanceOf(ApiError)
    expect((err as TypeError).message).toBe('fetch failed')
  })

  it('no answer within httpOptions.timeout: an AbortError', async () => {
    server.script({ fault: { type: 'timeout' } })
    const started = Date.now()
    const err = await failure(ask(client({ timeout: 300 })))
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).name).toBe('AbortError')
    expect(err).not.toBeInstanceOf(ApiError)
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it('malformed JSON in a plain answer: the SyntaxError of JSON.parse', async () => {
    server.script({ text: 'hi', fault: { type: 'malformed_json' } })
    const err = await failure(ask())
    expect(err).toBeInstanceOf(SyntaxError)
  })

  it('malformed JSON in a stream: the iterator throws a SyntaxError before any chunk', async () => {
    const { text, error } = await readStream({ text: 'hi', fault: { type: 'malformed_json' } })
    expect(error).toBeInstanceOf(SyntaxError)
    expect(text).toBe('')
  })

  it('a cut stream: the iterator yields what arrived, then throws undici`s "terminated" TypeError', async () => {
    const { text, error } = await readStream({
      text: LONG,
      chunkSize: 4,
      fault: { type: 'cut_stream', afterEvents: 3 },
    })
    expect(text.length).toBeGreaterThan(0)
    expect(LONG.startsWith(text)).toBe(true)
    expect(text.length).toBeLessThan(LONG.length)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe('terminated')
  })
})
