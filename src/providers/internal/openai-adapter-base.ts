import type { JsonObject } from '../../case/schema/json.ts'
import type { NormalizedResponse } from '../../case/schema/normalized.ts'
import type { SseChunk, WireRequest, WireResponse } from '../../case/schema/step.ts'
import type { AssembledStream, RequestLine } from '../types.ts'
import { obj } from './openai-common.ts'
import { urlPath } from './url-path.ts'

/** The parts both OpenAI adapters share: request-line matching and the response entry point. */

/**
 * True for a POST whose path ends with `suffix`, on any host: OpenAI-compatible servers (Ollama, vLLM,
 * LiteLLM, Groq, OpenRouter, Azure) serve the same API under their own base URL and prefix.
 */
export function matchesPost(request: RequestLine, suffix: string): boolean {
  if (request.method.toUpperCase() !== 'POST') return false
  return urlPath(request.url)?.endsWith(suffix) ?? false
}

/** True when the body asks for a stream. */
export function streams(wire: WireRequest): boolean {
  return obj(wire.body)?.stream === true
}

/**
 * A recorded response, normalized: null for an error status or a body that is not a JSON object;
 * `wire.chunks` (a stream) win over `wire.body`. The request id is the server's `x-request-id`
 * header, the one OpenAI support asks for, else the body's own id.
 */
export function normalizeWireResponse(
  wire: WireResponse,
  fromBody: (body: JsonObject) => NormalizedResponse,
  fromChunks: (chunks: readonly SseChunk[]) => AssembledStream,
): NormalizedResponse | null {
  if (wire.status >= 400) return null
  let response: NormalizedResponse
  if (wire.chunks) response = fromChunks(wire.chunks).response
  else {
    const body = obj(wire.body)
    if (!body) return null
    response = fromBody(body)
  }
  const requestId = wire.headers['x-request-id']
  return requestId ? { ...response, requestId } : response
}
