import { matchesPost, normalizeWireResponse, streams } from './internal/openai-adapter-base.ts'
import { normalizeChatRequest } from './internal/openai-chat-request.ts'
import { assembleChatStream, normalizeChatBody } from './internal/openai-chat-response.ts'
import { writeChatResponse, writeChatStream } from './internal/openai-chat-write.ts'
import { writeChatRequest } from './internal/openai-chat-write-request.ts'
import type { ProviderAdapter } from './types.ts'

/**
 * OpenAI Chat Completions (`POST …/chat/completions`), on api.openai.com and on every server that
 * speaks it (Ollama, vLLM, LiteLLM, Groq, OpenRouter, Azure): the path decides, not the host.
 *
 * Conventions: system and developer messages are the `system` parts; a refusal is text with the
 * wire's finish reason; reasoning of compatible servers (`reasoning_content`) is a reasoning part;
 * function tools are `tools` and any other tool type stays under `params.extra.tools`; usage counts
 * cached input and reasoning output inside the totals, as the API does.
 *
 * @example
 * const normalized = openaiChat.normalizeRequest({
 *   method: 'POST',
 *   url: 'http://localhost:11434/v1/chat/completions',
 *   headers: {},
 *   body: { model: 'llama3.2', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] },
 * })
 * normalized.system   // [{ type: 'text', text: 'Be brief.' }]
 * normalized.messages // [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]
 */
export const openaiChat: ProviderAdapter = {
  id: 'openai-chat',
  endpoint: 'chat.completions',
  matches: (request) => matchesPost(request, '/chat/completions'),
  isStreaming: streams,
  normalizeRequest: normalizeChatRequest,
  normalizeResponse: (wire) => normalizeWireResponse(wire, normalizeChatBody, assembleChatStream),
  assembleStream: assembleChatStream,
  writeRequest: writeChatRequest,
  writeResponse: writeChatResponse,
  writeStream: writeChatStream,
}
