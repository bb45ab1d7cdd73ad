import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../case/schema/json.ts'
import { parseSse } from '../providers/sse.ts'
import { ALL_MODEL_FAULTS, type ModelFault } from './faults.ts'
import { REFUSAL_TEXT } from './internal/finish-faults.ts'
import {
  chatDriver,
  DRIVERS,
  type Driver,
  recordedResponse,
  responsesDriver,
} from './internal/test-sdk-drivers.ts'
import { CUT_CHUNK_BYTES, type ModelFaultAnswer, modelFaultAnswer } from './model-fault.ts'

/** The answers on the wire, read without an SDK: headers, bytes, determinism. */

function answer(d: Driver, fault: ModelFault, streaming: boolean, recorded = recordedResponse(d.model)) {
  return modelFaultAnswer(fault, {
    adapter: d.adapter,
    streaming,
    requestBody: d.requestBody(streaming),
    url: d.url(streaming),
    recorded,
  })
}

function responseOf(a: ModelFaultAnswer): Response {
  if (!('response' in a)) throw new Error('expected a response')
  return a.response
}

/** Every chunk a body delivers, and the error it ends with (undefined when it ends cleanly). */
async function readAll(body: ReadableStream<Uint8Array>): Promise<{ chunks: Uint8Array[]; error: unknown }> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { chunks, error: undefined }
      chunks.push(value)
    }
  } catch (error) {
    return { chunks, error }
  }
}

describe('modelFaultAnswer on the wire', () => {
  it('rate_limit: 429, JSON, retry-after in seconds', async () => {
    const res = responseOf(answer(chatDriver, { kind: 'rate_limit', retryAfterSeconds: 12 }, false))
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('12')
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded')
    const anthropic = responseOf(answer(DRIVERS[2]!, { kind: 'rate_limit' }, false))
    expect(((await anthropic.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error')
    const gemini = responseOf(answer(DRIVERS[3]!, { kind: 'rate_limit' }, false))
    expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe('RESOURCE_EXHAUSTED')
  })

  it('gateway_html: text/html with the status, the same page for every API', async () => {
    const pages = new Set<string>()
    for (const d of DRIVERS) {
      const res = responseOf(answer(d, { kind: 'gateway_html', status: 503 }, true))
      expect(res.status).toBe(503)
      expect(res.headers.get('content-type')).toBe('text/html')
      pages.add(await res.text())
    }
    expect(pages.size).toBe(1)
    expect([...pages][0]).toContain('<h1>503 Service Temporarily Unavailable</h1>')
  })

  it('timeout and connection_reset reject, with errors shaped as Node fetch reports them', () => {
    const timeout = answer(chatDriver, { kind: 'timeout' }, false)
    const reset = answer(chatDriver, { kind: 'connection_reset' }, false)
    if (!('reject' in timeout) || !('reject' in reset)) throw new Error('expected rejections')
    expect(timeout.reject.name).toBe('TimeoutError')
    expect(timeout.reject).toBeInstanceOf(DOMException)
    expect(reset.reject).toBeInstanceOf(TypeError)
    expect(reset.reject.message).toBe('fetch failed')
    expect((reset.reject.cause as { code: string }).code).toBe('ECONNRESET')
    expect(String(reset.reject) + String(reset.reject.cause)).not.toMatch(/timed? ?out/i)
  })

  it('stream_cut, plain: afterChunks pieces of 64 bytes of the recorded body, then a network error', async () => {
    const full = JSON.stringify(chatDriver.adapter.writeResponse(recordedResponse(chatDriver.model), {}))
    const res = responseOf(answer(chatDriver, { kind: 'stream_cut', afterChunks: 2 }, false))
    expect(res.headers.get('transfer-encoding')).toBe('chunked')
    const { chunks, error } = await readAll(res.body!)
    expect(chunks.map((c) => c.byteLength)).toEqual([CUT_CHUNK_BYTES, CUT_CHUNK_BYTES])
    expect(new TextDecoder().decode(Buffer.concat(chunks))).toBe(full.slice(0, 2 * CUT_CHUNK_BYTES))
    expect((error as Error).message).toBe('terminated')
  })

  it('stream_cut never sends the whole answer: at most all but the last event or byte', async () => {
    const events = chatDriver.adapter.writeStream(recordedResponse(chatDriver.model), {})
    const streamed = await readAll(
      responseOf(answer(chatDriver, { kind: 'stream_cut', afterChunks: 999 }, true)).body!,
    )
    expect(streamed.chunks).toHaveLength(events.length - 1)
    expect(streamed.error).toBeInstanceOf(TypeError)
    const full = JSON.stringify(chatDriver.adapter.writeResponse(recordedResponse(chatDriver.model), {}))
    const plain = await readAll(
      responseOf(answer(chatDriver, { kind: 'stream_cut', afterChunks: 999 }, false)).body!,
    )
    expect(Buffer.concat(plain.chunks).byteLength).toBe(Buffer.byteLength(full) - 1)
    expect(plain.error).toBeInstanceOf(TypeError)
  })

  it('stream_cut @0: headers, then the error before any byte', async () => {
    const { chunks, error } = await readAll(
      responseOf(answer(chatDriver, { kind: 'stream_cut', afterChunks: 0 }, true)).body!,
    )
    expect(chunks).toHaveLength(0)
    expect((error as Error).message).toBe('terminated')
  })

  it('malformed_json: 200; the plain body and the first event are JSON cut in half', async () => {
    for (const d of DRIVERS) {
      const plain = responseOf(answer(d, { kind: 'malformed_json' }, false))
      expect(plain.status).toBe(200)
      const text = await plain.text()
      expect(() => JSON.parse(text)).toThrow(SyntaxError)
      const streamed = parseSse(await responseOf(answer(d, { kind: 'malformed_json' }, true)).text())
      expect(() => JSON.parse(streamed[0]!.data)).toThrow(SyntaxError)
    }
  })

  it('the Responses refusal: a refusal content part, and refusal events in the stream', async () => {
    const body = (await responseOf(answer(responsesDriver, { kind: 'refusal' }, false)).json()) as {
      output: { content: unknown[] }[]
    }
    expect(body.output[0]!.content).toEqual([{ type: 'refusal', refusal: REFUSAL_TEXT }])
    const events = parseSse(await responseOf(answer(responsesDriver, { kind: 'refusal' }, true)).text())
    const types = events.map((e) => e.event)
    expect(types).toContain('response.refusal.delta')
    expect(types).toContain('response.refusal.done')
    expect(types).not.toContain('response.output_text.delta')
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event)
  })

  it('the chat stream follows the request: a usage chunk only when include_usage asked for it', async () => {
    const body = {
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    }
    const ctx = { adapter: chatDriver.adapter, streaming: true, recorded: recordedResponse('gpt-5-mini') }
    const withUsage = parseSse(
      await responseOf(modelFaultAnswer({ kind: 'length_cutoff' }, { ...ctx, requestBody: body })).text(),
    )
    const without = parseSse(
      await responseOf(modelFaultAnswer({ kind: 'length_cutoff' }, { ...ctx, requestBody: null })).text(),
    )
    const usageChunks = (events: { data: string }[]) =>
      events.filter((e) => e.data !== '[DONE]' && JSON.parse(e.data).usage).length
    expect(usageChunks(withUsage)).toBe(1)
    expect(usageChunks(without)).toBe(0)
  })

  it('is deterministic: the same fault gives the same bytes', async () => {
    for (const d of DRIVERS) {
      for (const fault of ALL_MODEL_FAULTS) {
        for (const streaming of [false, true]) {
          const a = answer(d, fault, streaming)
          const b = answer(d, fault, streaming)
          if ('reject' in a) {
            expect('reject' in b && b.reject.message).toBe(a.reject.message)
            continue
          }
          const [ra, rb] = [readAll(a.response.body!), readAll(responseOf(b).body!)]
          const [x, y] = await Promise.all([ra, rb])
          expect(Buffer.concat(y.chunks).toString()).toBe(Buffer.concat(x.chunks).toString())
          expect(a.response.status).toBe(responseOf(b).status)
        }
      }
    }
  })

  it('with no recorded response, every fault still answers validly', async () => {
    for (const d of DRIVERS) {
      for (const fault of ALL_MODEL_FAULTS) {
        const a = modelFaultAnswer(fault, {
          adapter: d.adapter,
          streaming: false,
          requestBody: null,
          recorded: null,
        })
        if ('reject' in a) continue
        expect(a.response.status).toBeGreaterThanOrEqual(200)
        if (fault.kind === 'length_cutoff' || fault.kind === 'content_filter' || fault.kind === 'refusal') {
          const written = d.adapter.normalizeResponse({
            status: 200,
            headers: {},
            body: (await a.response.json()) as JsonValue,
          })
          expect(written?.finishReason).not.toBeNull()
        }
      }
    }
  })
})
