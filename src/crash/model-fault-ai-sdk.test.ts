import { createOpenAI } from '@ai-sdk/openai'
import { APICallError, generateText, streamText } from 'ai'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { formatSse } from '../providers/sse.ts'
import type { ModelFault } from './faults.ts'
import { BASE, chatDriver as d, recordedResponse } from './internal/test-sdk-drivers.ts'
import { modelFaultAnswer } from './model-fault.ts'

/**
 * The Vercel AI SDK (`ai` with `@ai-sdk/openai`, chat completions) against error statuses, a timeout,
 * a reset, malformed JSON and a cut stream: what `generateText` and `streamText` surface, and whether they retry.
 */

const recorded = recordedResponse(d.model)
const recordedText = recorded.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')

let handle: () => Response = () => HttpResponse.text('no answer set', { status: 599 })
const server = setupServer(http.all(`${BASE}/*`, () => handle()))
beforeAll(() => server.listen())
afterAll(() => server.close())

/** A provider whose first request gets the fault (served by MSW, or rejected by `fetch`), then the recording. */
function provider(fault: ModelFault, streaming: boolean, via: 'msw' | 'fetch' = 'msw') {
  const counter = { requests: 0 }
  const answer = modelFaultAnswer(fault, {
    adapter: d.adapter,
    streaming,
    requestBody: d.requestBody(streaming),
    recorded,
  })
  const recordedAnswer = () =>
    streaming
      ? new Response(d.adapter.writeStream(recorded, {}).map(formatSse).join(''), {
          headers: { 'content-type': 'text/event-stream' },
        })
      : HttpResponse.json(d.adapter.writeResponse(recorded, {}))
  const next = () => {
    counter.requests++
    if (counter.requests > 1) return recordedAnswer()
    if ('reject' in answer) throw answer.reject
    return answer.response
  }
  handle = next
  const customFetch = 'reject' in answer || via === 'fetch' ? async () => next() : undefined
  const openai = createOpenAI({ apiKey: 'sk-test', baseURL: `${BASE}/v1`, fetch: customFetch })
  return { model: openai.chat(d.model), counter }
}

describe('AI SDK: generateText', () => {
  it('429 with retry-after 0: retried with maxRetries 1, and the retry gets the recording', async () => {
    const { model, counter } = provider({ kind: 'rate_limit', retryAfterSeconds: 0 }, false)
    const result = await generateText({ model, prompt: 'Refund order A17.', maxRetries: 1 })
    expect(result.text).toBe(recordedText)
    expect(counter.requests).toBe(2)
  })

  it('429 with retry-after 0: the retry comes at once, not after its 2 s backoff', async () => {
    const { model, counter } = provider({ kind: 'rate_limit', retryAfterSeconds: 0 }, false, 'fetch')
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      let settled = false
      const pending = generateText({ model, prompt: 'Refund order A17.', maxRetries: 1 })
      void pending.finally(() => {
        settled = true
      })
      for (let t = 0; t < 20 && !settled; t++) await vi.advanceTimersByTimeAsync(1)
      expect(settled).toBe(true)
      expect((await pending).text).toBe(recordedText)
      expect(counter.requests).toBe(2)
    } finally {
      vi.useRealTimers()
    }
  })

  it('429 with maxRetries 0: an APICallError with status 429, marked retryable', async () => {
    const { model, counter } = provider({ kind: 'rate_limit' }, false)
    const error = await generateText({ model, prompt: 'Refund order A17.', maxRetries: 0 }).catch((e) => e)
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).statusCode).toBe(429)
    expect((error as APICallError).isRetryable).toBe(true)
    expect(counter.requests).toBe(1)
  })

  it.each([
    [{ kind: 'server_error' }, 500],
    [{ kind: 'gateway_html', status: 502 }, 502],
    [{ kind: 'gateway_html', status: 503 }, 503],
  ] as [ModelFault, number][])(
    '%o: an APICallError with the status, marked retryable',
    async (fault, status) => {
      const { model, counter } = provider(fault, false)
      const error = await generateText({ model, prompt: 'Refund order A17.', maxRetries: 0 }).catch((e) => e)
      expect(APICallError.isInstance(error)).toBe(true)
      expect((error as APICallError).statusCode).toBe(status)
      expect((error as APICallError).isRetryable).toBe(true)
      expect(counter.requests).toBe(1)
    },
  )

  it('malformed_json: an APICallError "Invalid JSON response", not retryable', async () => {
    const { model, counter } = provider({ kind: 'malformed_json' }, false)
    const error = await generateText({ model, prompt: 'Refund order A17.', maxRetries: 2 }).catch((e) => e)
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).message).toBe('Invalid JSON response')
    expect((error as APICallError).isRetryable).toBe(false)
    expect(counter.requests).toBe(1)
  })

  it('timeout: the TimeoutError its own timeouts raise, thrown at once and not retried', async () => {
    const { model, counter } = provider({ kind: 'timeout' }, false)
    const started = performance.now()
    const error = await generateText({ model, prompt: 'Refund order A17.', maxRetries: 2 }).catch((e) => e)
    expect((error as Error).name).toBe('TimeoutError')
    expect(APICallError.isInstance(error)).toBe(false)
    expect(counter.requests).toBe(1)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('connection_reset: a retryable APICallError "Cannot connect to API", not a timeout', async () => {
    const { model, counter } = provider({ kind: 'connection_reset' }, false)
    const error = await generateText({ model, prompt: 'Refund order A17.', maxRetries: 0 }).catch((e) => e)
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).message).toContain('Cannot connect to API')
    expect((error as APICallError).isRetryable).toBe(true)
    expect(counter.requests).toBe(1)
  })
})

describe('AI SDK: streamText', () => {
  it('stream_cut: the text before the cut, then an APICallError caused by the network error; no retry', async () => {
    const afterChunks = 3
    const { model, counter } = provider({ kind: 'stream_cut', afterChunks }, true)
    const errors: unknown[] = []
    const result = streamText({
      model,
      prompt: 'Refund order A17.',
      maxRetries: 2,
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    let text = ''
    try {
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') text += part.text
        if (part.type === 'error') errors.push(part.error)
      }
    } catch (err) {
      errors.push(err)
    }
    const sent = d.adapter.assembleStream(d.adapter.writeStream(recorded, {}).slice(0, afterChunks))
    const sentText = sent.response.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
    expect(sentText.length).toBeGreaterThan(0)
    expect(text).toBe(sentText)
    expect(text.length).toBeLessThan(recordedText.length)
    expect(errors.length).toBeGreaterThan(0)
    const [error] = errors
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).message).toBe('Failed to process successful response')
    expect(((error as APICallError).cause as Error).message).toBe('terminated')
    expect(counter.requests).toBe(1)
  })
})
