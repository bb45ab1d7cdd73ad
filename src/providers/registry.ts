import { CrashlabError } from '../errors.ts'
import { anthropicMessages } from './anthropic-messages.ts'
import { gemini } from './gemini.ts'
import { labelHttpCall } from './labels.ts'
import { openaiChat } from './openai-chat.ts'
import { openaiResponses } from './openai-responses.ts'
import type { ProviderAdapter, ProviderId, RequestLine } from './types.ts'

/** Every wire API crashlab reads, one adapter each. */
export const ADAPTERS: readonly ProviderAdapter[] = [openaiChat, openaiResponses, anthropicMessages, gemini]

/**
 * The adapter whose API a request calls, or undefined for anything else.
 *
 * @example
 * findAdapter({ method: 'POST', url: 'http://localhost:11434/v1/chat/completions' })?.id // 'openai-chat'
 */
export function findAdapter(request: RequestLine): ProviderAdapter | undefined {
  return ADAPTERS.find((a) => a.matches(request))
}

/**
 * The adapter with this id.
 *
 * @example
 * getAdapter('anthropic-messages').endpoint // 'messages'
 */
export function getAdapter(id: ProviderId): ProviderAdapter {
  const adapter = ADAPTERS.find((a) => a.id === id)
  if (!adapter) {
    throw new CrashlabError(
      'E_PROVIDER_UNKNOWN',
      `no provider adapter "${id}"; known: ${ADAPTERS.map((a) => a.id).join(', ')}`,
    )
  }
  return adapter
}

/** A request on a provider host, classified: a model call for an adapter, or another labelled call. */
export type RequestKind = { kind: 'llm'; adapter: ProviderAdapter } | { kind: 'http'; label: string }

/**
 * Sorts a request on an intercepted host into a model call or a labelled other call.
 *
 * @example
 * classifyRequest({ method: 'GET', url: 'https://api.openai.com/v1/models' }) // { kind: 'http', label: 'models.list' }
 */
export function classifyRequest(request: RequestLine): RequestKind {
  const adapter = findAdapter(request)
  return adapter ? { kind: 'llm', adapter } : { kind: 'http', label: labelHttpCall(request) }
}
