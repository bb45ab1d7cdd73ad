import type { JsonValue } from '../case/schema/json.ts'
import type { NormalizedRequest, NormalizedResponse } from '../case/schema/normalized.ts'
import type { SseChunk } from '../case/schema/step.ts'
import { formatSse } from '../providers/sse.ts'
import type { ProviderAdapter, WriteResponseOptions } from '../providers/types.ts'
import type { ModelFault } from './faults.ts'
import { errorBody, gatewayPage } from './internal/error-bodies.ts'
import { EMPTY_RESPONSE, finishResponse, reshapeBody, reshapeStream } from './internal/finish-faults.ts'
import {
  connectionResetError,
  cutBody,
  cutSse,
  streamTerminatedError,
  timeoutError,
} from './internal/wire-cuts.ts'

/**
 * What a crash test answers a model call with, in place of the recording: a `Response` to serve, or the
 * error the caller's `fetch` promise rejects with. Everything is built at once, with no timer and no
 * randomness: the same fault on the same step gives the same bytes.
 */

/** What a model fault needs to know about the call it answers. */
export interface ModelFaultContext {
  /** The adapter of the call's wire API (`findAdapter(request)`). */
  adapter: ProviderAdapter
  /** The call asked for a streamed (SSE) answer (`adapter.isStreaming(wire)`). */
  streaming: boolean
  /** The parsed JSON body of the request. */
  requestBody: JsonValue | null
  /** The request URL (Gemini names the model in it); a placeholder is used when left out. */
  url?: string
  /**
   * The recorded normalized response of the step: `stream_cut`, `malformed_json`, `refusal`,
   * `content_filter` and `length_cutoff` are written from it. Null (no recorded answer) writes them
   * from an empty answer.
   */
  recorded: NormalizedResponse | null
}

/** A `Response` to serve, or the error the caller's `fetch` rejects with. */
export type ModelFaultAnswer = { response: Response } | { reject: Error }

/** The bytes of a non-streamed `stream_cut` body, one chunk each. */
export const CUT_CHUNK_BYTES = 64

const JSON_HEADERS = { 'content-type': 'application/json' }
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }
/**
 * A cut body says it is chunked: with neither a length nor chunked framing, HTTP ends a body when the
 * connection closes, so a client reading through a socket (MSW's interception of Node's fetch) would
 * take the dropped connection for a complete body. Chunked, the drop comes before the last chunk.
 */
const CUT_HEADERS = { 'transfer-encoding': 'chunked' }

/**
 * The answer a model call gets for `fault`, valid on the call's wire API.
 *
 * @example
 * const adapter = findAdapter(request)!
 * const answer = modelFaultAnswer({ kind: 'rate_limit', retryAfterSeconds: 0 }, {
 *   adapter, streaming: false, requestBody: await request.clone().json(), recorded: step.response.normalized,
 * })
 * if ('reject' in answer) throw answer.reject // the fetch promise rejects
 * return answer.response                        // 429, retry-after: 0
 */
export function modelFaultAnswer(fault: ModelFault, ctx: ModelFaultContext): ModelFaultAnswer {
  const provider = ctx.adapter.id
  switch (fault.kind) {
    case 'rate_limit':
      return jsonError(errorBody(provider, 429), 429, {
        'retry-after': String(fault.retryAfterSeconds ?? 0),
      })
    case 'server_error':
      return jsonError(errorBody(provider, 500), 500)
    case 'gateway_html': {
      const status = fault.status ?? 502
      const headers = { 'content-type': 'text/html', server: 'nginx' }
      return { response: new Response(gatewayPage(status), { status, headers }) }
    }
    case 'timeout':
      return { reject: timeoutError() }
    case 'connection_reset':
      return { reject: connectionResetError() }
    case 'stream_cut':
      return streamCut(fault.afterChunks ?? 1, ctx)
    case 'malformed_json':
      return malformed(ctx)
    case 'refusal':
    case 'content_filter':
    case 'length_cutoff': {
      const response = finishResponse(fault.kind, ctx.recorded ?? EMPTY_RESPONSE, provider)
      const options = writeOptions(ctx)
      if (ctx.streaming) {
        const chunks = reshapeStream(fault.kind, provider, ctx.adapter.writeStream(response, options))
        return sse(chunks.map(formatSse).join(''))
      }
      const body = reshapeBody(fault.kind, provider, ctx.adapter.writeResponse(response, options))
      return { response: new Response(JSON.stringify(body), { status: 200, headers: JSON_HEADERS }) }
    }
  }
}

function jsonError(body: JsonValue, status: number, extra: Record<string, string> = {}): ModelFaultAnswer {
  const headers = { ...JSON_HEADERS, ...extra }
  return { response: new Response(JSON.stringify(body), { status, headers }) }
}

function sse(
  body: string | ReadableStream<Uint8Array>,
  extra: Record<string, string> = {},
): ModelFaultAnswer {
  return { response: new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...extra } }) }
}

/**
 * Streamed: the recorded events, the first `afterChunks` of them (never all: at most all but the last),
 * then the network error. Plain: the recorded JSON body in 64-byte chunks, the first `afterChunks` of
 * them (at most all but the last byte), then the same error.
 */
function streamCut(afterChunks: number, ctx: ModelFaultContext): ModelFaultAnswer {
  const recorded = ctx.recorded ?? EMPTY_RESPONSE
  const options = writeOptions(ctx)
  if (ctx.streaming) {
    const events = ctx.adapter.writeStream(recorded, options).map(formatSse)
    return sse(cutSse(events, afterChunks, streamTerminatedError()), CUT_HEADERS)
  }
  const text = JSON.stringify(ctx.adapter.writeResponse(recorded, options))
  const body = cutBody(text, afterChunks, CUT_CHUNK_BYTES, streamTerminatedError())
  return { response: new Response(body, { status: 200, headers: { ...JSON_HEADERS, ...CUT_HEADERS } }) }
}

/**
 * Status 200 whose JSON is cut in half: the plain body, or the data of the stream's first event (the
 * rest of the recorded stream follows it, as a server that wrote a bad event would go on).
 */
function malformed(ctx: ModelFaultContext): ModelFaultAnswer {
  const recorded = ctx.recorded ?? EMPTY_RESPONSE
  const options = writeOptions(ctx)
  if (ctx.streaming) {
    const chunks: SseChunk[] = ctx.adapter.writeStream(recorded, options)
    const [first, ...rest] = chunks
    const broken = first ? [{ ...first, data: halfOf(first.data) }, ...rest] : [{ data: '{"', atMs: 0 }]
    return sse(broken.map(formatSse).join(''))
  }
  const text = JSON.stringify(ctx.adapter.writeResponse(recorded, options))
  return { response: new Response(halfOf(text), { status: 200, headers: JSON_HEADERS }) }
}

function halfOf(text: string): string {
  return text.slice(0, Math.max(1, Math.floor(text.length / 2)))
}

function writeOptions(ctx: ModelFaultContext): WriteResponseOptions {
  const request = normalizedRequest(ctx)
  return request ? { request } : {}
}

/** The request as the adapter reads it, for what a written answer echoes (usage chunks, settings). */
function normalizedRequest(ctx: ModelFaultContext): NormalizedRequest | undefined {
  if (ctx.requestBody === null) return undefined
  const url = ctx.url ?? placeholderUrl(ctx.adapter.id)
  try {
    return ctx.adapter.normalizeRequest({ method: 'POST', url, headers: {}, body: ctx.requestBody })
  } catch {
    // A body the adapter cannot read still gets its fault; the answer just echoes no settings.
    return undefined
  }
}

function placeholderUrl(provider: ProviderAdapter['id']): string {
  switch (provider) {
    case 'openai-chat':
      return 'https://api.openai.com/v1/chat/completions'
    case 'openai-responses':
      return 'https://api.openai.com/v1/responses'
    case 'anthropic-messages':
      return 'https://api.anthropic.com/v1/messages'
    case 'gemini':
      return 'https://generativelanguage.googleapis.com/v1beta/models/unknown:generateContent'
  }
}
