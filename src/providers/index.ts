/**
 * Provider adapters: one per wire API, turning wire requests and responses (plain or streamed) into the
 * provider-neutral shapes, and back.
 */
export { anthropicMessages } from './anthropic-messages.ts'
export { gemini } from './gemini.ts'
export { labelHttpCall } from './labels.ts'
export { openaiChat } from './openai-chat.ts'
export { openaiResponses } from './openai-responses.ts'
export { ADAPTERS, classifyRequest, findAdapter, getAdapter, type RequestKind } from './registry.ts'
export {
  HASHED_HEADERS,
  type RequestHashInput,
  type RequestHashOptions,
  requestHash,
  VOLATILE_PARAMS,
} from './request-hash.ts'
export { formatSse, parseSse, SseParser, sseJson } from './sse.ts'
export type { AssembledStream, ProviderAdapter, ProviderId, RequestLine } from './types.ts'
