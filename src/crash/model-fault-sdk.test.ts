import Anthropic from '@anthropic-ai/sdk'
import { ApiError } from '@google/genai'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { formatSse } from '../providers/sse.ts'
import type { ProviderId } from '../providers/types.ts'
import type { ModelFault } from './faults.ts'
import { REFUSAL_TEXT } from './internal/finish-faults.ts'
import { BASE, DRIVERS, type Driver, type Observed, recordedResponse } from './internal/test-sdk-drivers.ts'
import { type ModelFaultAnswer, modelFaultAnswer } from './model-fault.ts'

/**
 * Every model fault against every wire API, plain and streamed, through the real SDK clients: a
 * `{ response }` is served by a real MSW server, a `{ reject }` by a custom `fetch` that rejects with
 * it. The first request of a call gets the fault; any retry gets the recorded answer.
 */

let handle: () => Response = () => HttpResponse.text('no answer set', { status: 599 })
const server = setupServer(http.all(`${BASE}/*`, () => handle()))
beforeAll(() => server.listen())
afterEach(() => {
  server.resetHandlers()
  vi.useRealTimers()
})
afterAll(() => server.close())

function answerFor(d: Driver, fault: ModelFault, streaming: boolean): ModelFaultAnswer {
  return modelFaultAnswer(fault, {
    adapter: d.adapter,
    streaming,
    requestBody: d.requestBody(streaming),
    url: d.url(streaming),
    recorded: recordedResponse(d.model),
  })
}

function recordedAnswer(d: Driver, streaming: boolean): Response {
  const recorded = recordedResponse(d.model)
  if (!streaming) return HttpResponse.json(d.adapter.writeResponse(recorded, {}))
  const body = d.adapter.writeStream(recorded, {}).map(formatSse).join('')
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
}

interface Run {
  observed: Observed
  requests: number
}

/** One call with the real SDK: the fault first, the recording on any retry. */
async function run(
  d: Driver,
  fault: ModelFault,
  streaming: boolean,
  options: { maxRetries?: number; via?: 'msw' | 'fetch' } = {},
): Promise<Run> {
  let requests = 0
  const answer = answerFor(d, fault, streaming)
  const next = (): Response | Error => {
    requests++
    if (requests > 1) return recordedAnswer(d, streaming)
    return 'reject' in answer ? answer.reject : answer.response
  }
  const maxRetries = options.maxRetries ?? 0
  if ('reject' in answer || options.via === 'fetch') {
    const customFetch = async () => {
      const out = next()
      if (out instanceof Error) throw out
      return out
    }
    return { observed: await d.call({ streaming, maxRetries, fetch: customFetch as typeof fetch }), requests }
  }
  handle = () => next() as Response
  return { observed: await d.call({ streaming, maxRetries }), requests }
}

/** Runs a call whose retry waits on the SDK's backoff timer, with that timer faked. */
async function runWithFakeTimers(d: Driver, fault: ModelFault, streaming: boolean): Promise<Run> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  const pending = run(d, fault, streaming, { maxRetries: 1, via: 'fetch' })
  await vi.advanceTimersByTimeAsync(20_000)
  return pending
}

const recordedText = recordedResponse('m')
  .parts.map((p) => (p.type === 'text' ? p.text : ''))
  .join('')
const isStainless = (id: ProviderId) => id !== 'gemini'

/** The SDK's typed errors for a status answer and a failed connection. */
function sdkErrors(d: Driver) {
  if (d.id === 'anthropic-messages') return Anthropic
  return OpenAI
}

function expectStatusError(d: Driver, error: unknown, status: number) {
  if (d.id === 'gemini') {
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(status)
    return
  }
  const sdk = sdkErrors(d)
  expect(error).toBeInstanceOf(status === 429 ? sdk.RateLimitError : sdk.InternalServerError)
  expect((error as InstanceType<typeof sdk.APIError>).status).toBe(status)
}

/** What the SDK reports as the finish of each finish fault, per API. */
const FINISH: Record<ProviderId, Record<'refusal' | 'content_filter' | 'length_cutoff', string>> = {
  'openai-chat': { refusal: 'stop', content_filter: 'content_filter', length_cutoff: 'length' },
  'openai-responses': {
    refusal: 'completed',
    content_filter: 'incomplete:content_filter',
    length_cutoff: 'incomplete:max_output_tokens',
  },
  'anthropic-messages': { refusal: 'refusal', content_filter: 'refusal', length_cutoff: 'max_tokens' },
  gemini: { refusal: 'STOP', content_filter: 'SAFETY', length_cutoff: 'MAX_TOKENS' },
}

/** APIs with a refusal field apart from the text: the refusal is there, not in the text. */
const REFUSAL_FIELD: Record<ProviderId, boolean> = {
  'openai-chat': true,
  'openai-responses': true,
  'anthropic-messages': false,
  gemini: false,
}

describe.each(DRIVERS.flatMap((d) => [false, true].map((streaming) => ({ d, streaming }))))(
  'model faults: $d.id, streaming $streaming',
  ({ d, streaming }) => {
    it('rate_limit: a 429 with retry-after, the SDK rate-limit error; the response carries the header', async () => {
      const answer = answerFor(d, { kind: 'rate_limit', retryAfterSeconds: 7 }, streaming)
      expect('response' in answer && answer.response.headers.get('retry-after')).toBe('7')
      const { observed, requests } = await run(d, { kind: 'rate_limit' }, streaming)
      expectStatusError(d, observed.error, 429)
      expect(requests).toBe(1)
    })

    it('server_error: a 500, the SDK server error', async () => {
      const { observed } = await run(d, { kind: 'server_error' }, streaming)
      expectStatusError(d, observed.error, 500)
      expect(String((observed.error as Error).message)).toContain('injected by a crashlab crash test')
    })

    it.each([502, 503] as const)(
      'gateway_html %s: the HTML page reaches the SDK as a server error',
      async (status) => {
        const { observed } = await run(d, { kind: 'gateway_html', status }, streaming)
        expectStatusError(d, observed.error, status)
        expect(String((observed.error as Error).message)).toContain(`<title>${status}`)
      },
    )

    it('timeout: the SDK reports a timeout at once', async () => {
      const started = performance.now()
      const { observed, requests } = await run(d, { kind: 'timeout' }, streaming)
      expect(performance.now() - started).toBeLessThan(1000)
      expect(requests).toBe(1)
      if (d.id === 'gemini') {
        expect((observed.error as Error).name).toBe('TimeoutError')
      } else {
        expect(observed.error).toBeInstanceOf(sdkErrors(d).APIConnectionTimeoutError)
      }
    })

    it('connection_reset: the SDK reports a connection error, not a timeout', async () => {
      const { observed } = await run(d, { kind: 'connection_reset' }, streaming)
      if (d.id === 'gemini') {
        expect(observed.error).toBeInstanceOf(TypeError)
        expect((observed.error as Error).message).toBe('fetch failed')
        expect(((observed.error as Error).cause as { code: string }).code).toBe('ECONNRESET')
      } else {
        const sdk = sdkErrors(d)
        expect(observed.error).toBeInstanceOf(sdk.APIConnectionError)
        expect(observed.error).not.toBeInstanceOf(sdk.APIConnectionTimeoutError)
      }
    })

    it('stream_cut: the SDK gets what came before the cut, then the network error', async () => {
      const afterChunks = 3
      const { observed } = await run(d, { kind: 'stream_cut', afterChunks }, streaming)
      expect(observed.error).toBeInstanceOf(TypeError)
      expect((observed.error as Error).message).toBe('terminated')
      expect(observed.finish).toBeNull()
      if (streaming) {
        // The text the first events carry, as the adapter reads them back.
        const events = d.adapter.writeStream(recordedResponse(d.model), {}).slice(0, afterChunks)
        const sent = d.adapter.assembleStream(events).response.parts
        const sentText = sent.map((p) => (p.type === 'text' ? p.text : '')).join('')
        expect(observed.text).toBe(sentText)
        expect(recordedText.startsWith(observed.text)).toBe(true)
        expect(observed.text.length).toBeLessThan(recordedText.length)
      } else {
        expect(observed.text).toBe('')
      }
    })

    it('malformed_json: status 200, and the SDK fails to parse JSON', async () => {
      const answer = answerFor(d, { kind: 'malformed_json' }, streaming)
      expect('response' in answer && answer.response.status).toBe(200)
      const { observed, requests } = await run(d, { kind: 'malformed_json' }, streaming)
      expect(observed.error).toBeInstanceOf(SyntaxError)
      expect(observed.text).toBe('')
      expect(requests).toBe(1)
    })

    it('refusal: the SDK reports a refusal in the API shape', async () => {
      const { observed } = await run(d, { kind: 'refusal' }, streaming)
      expect(observed.error).toBeUndefined()
      expect(observed.finish).toBe(FINISH[d.id].refusal)
      if (REFUSAL_FIELD[d.id]) {
        expect(observed.refusal).toBe(REFUSAL_TEXT)
        expect(observed.text).toBe('')
      } else {
        expect(observed.text).toBe(REFUSAL_TEXT)
      }
    })

    it('content_filter: the SDK reports the content-filter finish and no text', async () => {
      const { observed } = await run(d, { kind: 'content_filter' }, streaming)
      expect(observed.error).toBeUndefined()
      expect(observed.finish).toBe(FINISH[d.id].content_filter)
      expect(observed.text).toBe('')
    })

    it('length_cutoff: the SDK reports the length finish and the first half of the recorded text', async () => {
      const { observed } = await run(d, { kind: 'length_cutoff' }, streaming)
      expect(observed.error).toBeUndefined()
      expect(observed.finish).toBe(FINISH[d.id].length_cutoff)
      expect(observed.text).toBe(recordedText.slice(0, Math.ceil(recordedText.length / 2)))
    })

    // @google/genai retries only when asked to (retryOptions): its own describe, below, covers it.
    if (isStainless(d.id))
      it('retries: 500, 502, 503, timeout and reset are retried; the retry gets the recording', async () => {
        const faults: ModelFault[] = [
          { kind: 'server_error' },
          { kind: 'gateway_html', status: 502 },
          { kind: 'gateway_html', status: 503 },
          { kind: 'timeout' },
          { kind: 'connection_reset' },
        ]
        for (const fault of faults) {
          const { observed, requests } = await runWithFakeTimers(d, fault, streaming)
          expect({ kind: fault.kind, requests, text: observed.text }).toEqual({
            kind: fault.kind,
            requests: 2,
            text: recordedText,
          })
        }
      })

    it('retries: a cut stream and malformed JSON are never retried (the answer had begun)', async () => {
      for (const fault of [{ kind: 'stream_cut' }, { kind: 'malformed_json' }] as ModelFault[]) {
        const { observed, requests } = await run(d, fault, streaming, { maxRetries: 1, via: 'fetch' })
        expect(requests).toBe(1)
        expect(observed.error).toBeDefined()
      }
    })
  },
)

/** True when `pending` settles within `ms` of fake time (the SDK's backoff timers are faked). */
async function settlesWithin(pending: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false
  void pending.then(
    () => {
      settled = true
    },
    () => {
      settled = true
    },
  )
  const step = Math.max(1, Math.floor(ms / 200))
  for (let t = 0; t <= ms && !settled; t += step) await vi.advanceTimersByTimeAsync(step)
  return settled
}

describe('rate_limit with retry-after 0', () => {
  it.each([false, true])(
    'openai retries and the retry gets the recording, through MSW (streaming %s)',
    async (streaming) => {
      for (const d of DRIVERS.filter((x) => x.id.startsWith('openai'))) {
        const { observed, requests } = await run(d, { kind: 'rate_limit', retryAfterSeconds: 0 }, streaming, {
          maxRetries: 1,
        })
        expect(requests).toBe(2)
        expect(observed.error).toBeUndefined()
        expect(observed.text).toBe(recordedText)
      }
    },
  )

  it('openai retries at once: well before its own backoff (at least 375 ms) would end', async () => {
    for (const d of DRIVERS.filter((x) => x.id.startsWith('openai'))) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      const pending = run(d, { kind: 'rate_limit', retryAfterSeconds: 0 }, false, {
        maxRetries: 1,
        via: 'fetch',
      })
      expect(await settlesWithin(pending, 20)).toBe(true)
      expect((await pending).requests).toBe(2)
      vi.useRealTimers()
    }
  })

  it('anthropic ignores retry-after 0 and waits its own backoff before the retry', async () => {
    const d = DRIVERS.find((x) => x.id === 'anthropic-messages')!
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const pending = run(d, { kind: 'rate_limit', retryAfterSeconds: 0 }, false, {
      maxRetries: 1,
      via: 'fetch',
    })
    // Still waiting after 100 ms: a retry-after of 0 does not count as an answer for this SDK.
    expect(await settlesWithin(pending, 100)).toBe(false)
    expect(await settlesWithin(pending, 20_000)).toBe(true)
    const { observed, requests } = await pending
    expect(requests).toBe(2)
    expect(observed.text).toBe(recordedText)
  })
})

describe('@google/genai retries only when retryOptions are set', () => {
  const d = DRIVERS.find((x) => x.id === 'gemini')!

  it('without them, one request for every fault', async () => {
    for (const fault of [
      { kind: 'rate_limit' },
      { kind: 'server_error' },
      { kind: 'timeout' },
    ] as ModelFault[]) {
      const { requests, observed } = await run(d, fault, false, { via: 'fetch' })
      expect(requests).toBe(1)
      expect(observed.error).toBeDefined()
    }
  })

  it('with them, 429, 500, 502, 503 and a timeout are retried; a reset (TypeError "fetch failed") is not', async () => {
    const retried: ModelFault[] = [
      { kind: 'rate_limit' },
      { kind: 'server_error' },
      { kind: 'gateway_html', status: 502 },
      { kind: 'gateway_html', status: 503 },
      { kind: 'timeout' },
    ]
    for (const fault of retried) {
      const { requests, observed } = await run(d, fault, false, { maxRetries: 1, via: 'fetch' })
      expect({ kind: fault.kind, requests, text: observed.text }).toEqual({
        kind: fault.kind,
        requests: 2,
        text: recordedText,
      })
    }
    const reset = await run(d, { kind: 'connection_reset' }, false, { maxRetries: 1 })
    expect(reset.requests).toBe(1)
    expect((reset.observed.error as Error).message).toBe('fetch failed')
  })
})
