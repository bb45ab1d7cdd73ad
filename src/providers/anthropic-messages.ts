import type { WireRequest, WireResponse } from '../case/schema/step.ts'
import { isRecord } from './internal/anthropic-gemini-values.ts'
import { normalizeAnthropicRequest } from './internal/anthropic-request.ts'
import { normalizeAnthropicMessage } from './internal/anthropic-response.ts'
import { assembleAnthropicStream } from './internal/anthropic-stream.ts'
import { writeAnthropicRequest } from './internal/anthropic-write-request.ts'
import { writeAnthropicMessage, writeAnthropicStream } from './internal/anthropic-write-response.ts'
import { urlPath } from './internal/url-path.ts'
import type { ProviderAdapter, RequestLine } from './types.ts'

/** `…/v1/messages` and nothing below it: `count_tokens` and `batches` are other calls. */
const PATH = /\/v1\/messages$/

/**
 * The Anthropic Messages API (`POST /v1/messages`) on any host: api.anthropic.com, a proxy, a gateway
 * or the scripted provider. Tool results in user turns become their own `tool` messages, thinking
 * becomes reasoning, images and documents become placeholders; usage counts every input token
 * (uncached, cache writes and cache reads) with the cache reads as `cachedTokens`.
 *
 * @example
 * anthropicMessages.matches({ method: 'POST', url: 'https://api.anthropic.com/v1/messages' })             // true
 * anthropicMessages.matches({ method: 'POST', url: 'https://api.anthropic.com/v1/messages/count_tokens' }) // false
 * anthropicMessages.normalizeRequest(wire).messages
 */
export const anthropicMessages: ProviderAdapter = {
  id: 'anthropic-messages',
  endpoint: 'messages',

  matches(request: RequestLine): boolean {
    if (request.method.toUpperCase() !== 'POST') return false
    const path = urlPath(request.url)
    return path !== undefined && PATH.test(path)
  },

  isStreaming(wire: WireRequest): boolean {
    return isRecord(wire.body) && wire.body.stream === true
  },

  normalizeRequest: normalizeAnthropicRequest,

  normalizeResponse(wire: WireResponse) {
    if (wire.status >= 400) return null
    if (wire.chunks) {
      const { response } = assembleAnthropicStream(wire.chunks)
      const requestId = wire.headers['request-id']
      return requestId === undefined ? response : { ...response, requestId }
    }
    return normalizeAnthropicMessage(wire.body, wire.headers)
  },

  assembleStream: assembleAnthropicStream,
  writeRequest: writeAnthropicRequest,
  writeResponse: writeAnthropicMessage,
  writeStream: writeAnthropicStream,
}
