import type { JsonValue } from '../case/schema/json.ts'
import type { NormalizedRequest, NormalizedResponse } from '../case/schema/normalized.ts'
import type { SseChunk, WireRequest, WireResponse } from '../case/schema/step.ts'

/** The ids of the wire APIs crashlab reads. */
export type ProviderId = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini'

/** What an adapter needs to decide whether a request is its own: method and URL, before any body is read. */
export interface RequestLine {
  method: string
  url: string | URL
}

/** A streamed response put back together: what arrived, and whether the stream ended properly. */
export interface AssembledStream {
  response: NormalizedResponse
  /** The stream ended early, errored or was cancelled: `response` holds what arrived. */
  incomplete: boolean
}

/**
 * One wire API (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini). An adapter is
 * pure: it reads and writes data, never the network, so the engine, the scripted provider, patches and
 * the diff all share it.
 *
 * @example
 * const adapter = findAdapter({ method: 'POST', url: 'https://api.openai.com/v1/chat/completions' })
 * adapter?.normalizeRequest(wire).messages
 */
export interface ProviderAdapter {
  readonly id: ProviderId
  /** The API operation, for a step's `endpoint`, e.g. `chat.completions`. */
  readonly endpoint: string
  /** True when the request is a model call of this API (method and path; the host may be any base URL). */
  matches(request: RequestLine): boolean
  /** True when the request asks for a streamed (SSE) response. */
  isStreaming(wire: WireRequest): boolean
  /** The provider-neutral request. Unknown body fields land in `params.extra` under their wire names. */
  normalizeRequest(wire: WireRequest): NormalizedRequest
  /**
   * The provider-neutral response of a successful call: from `wire.body`, or, for a streamed response,
   * from `wire.chunks` through `assembleStream`. Null for an error status (the step's error says why).
   */
  normalizeResponse(wire: WireResponse): NormalizedResponse | null
  /** Puts a streamed response back together from its server-sent events. */
  assembleStream(chunks: readonly SseChunk[]): AssembledStream
  /**
   * The way back: a wire request carrying `normalized`, keeping everything of `original` that the
   * normalized shape does not describe (unknown fields, provider options, headers).
   */
  writeRequest(normalized: NormalizedRequest, original: WireRequest): WireRequest
  /**
   * A plain (non-streamed) response body carrying `response`, as the API would send it. The scripted
   * provider serves it; `normalizeResponse` of it gives `response` back.
   */
  writeResponse(response: NormalizedResponse, options: WriteResponseOptions): JsonValue
  /**
   * The same response as the API streams it: every event, framed as the API frames it (event names,
   * terminal event, usage chunk), with `atMs` 0. `assembleStream` of it gives `response` back.
   */
  writeStream(response: NormalizedResponse, options: WriteResponseOptions): SseChunk[]
}

/** What a written response needs beyond the normalized shape. */
export interface WriteResponseOptions {
  /** The response id (`chatcmpl-…`, `resp_…`, `msg_…`); made up when omitted. */
  id?: string
  /** Unix seconds for `created`; fixed when omitted, so written responses are reproducible. */
  created?: number
  /**
   * OpenAI chat streams carry usage only when the request asked (`stream_options.include_usage`); the
   * writer follows the request it answers.
   */
  request?: NormalizedRequest
}
