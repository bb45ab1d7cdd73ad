import type { WireRequest, WireResponse } from '../case/schema/step.ts'
import { normalizeGeminiRequest } from './internal/gemini-request.ts'
import { assembleGeminiStream, normalizeGeminiResponse } from './internal/gemini-response.ts'
import { parseGeminiUrl } from './internal/gemini-url.ts'
import { writeGeminiRequest } from './internal/gemini-write-request.ts'
import { writeGeminiResponse, writeGeminiStream } from './internal/gemini-write-response.ts'
import type { ProviderAdapter, RequestLine } from './types.ts'

/**
 * The Gemini API's `generateContent` (`POST …/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` for a stream) on any base URL: generativelanguage.googleapis.com,
 * Vertex AI, a proxy. The model comes from the path. Roles `user` / `model` become user / assistant,
 * function responses become `tool` messages with their `response` as JSON text, thoughts become
 * reasoning; usage counts thoughts as output (`reasoningTokens`) and cached content as `cachedTokens`.
 *
 * @example
 * gemini.matches({ method: 'POST', url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent' }) // true
 * gemini.matches({ method: 'POST', url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens' })     // false
 * gemini.normalizeRequest(wire).model // 'gemini-2.5-flash'
 */
export const gemini: ProviderAdapter = {
  id: 'gemini',
  endpoint: 'generateContent',

  matches(request: RequestLine): boolean {
    return request.method.toUpperCase() === 'POST' && parseGeminiUrl(request.url) !== undefined
  },

  isStreaming(wire: WireRequest): boolean {
    return parseGeminiUrl(wire.url)?.stream === true
  },

  normalizeRequest: normalizeGeminiRequest,

  normalizeResponse(wire: WireResponse) {
    if (wire.status >= 400) return null
    if (wire.chunks) return assembleGeminiStream(wire.chunks).response
    return normalizeGeminiResponse(wire.body)
  },

  assembleStream: assembleGeminiStream,
  writeRequest: writeGeminiRequest,
  writeResponse: writeGeminiResponse,
  writeStream: writeGeminiStream,
}
