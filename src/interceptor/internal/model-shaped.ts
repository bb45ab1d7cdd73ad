import { findAdapter } from '../../providers/registry.ts'
import type { ProviderAdapter, RequestLine } from '../../providers/types.ts'

/**
 * The adapter whose wire API a request calls, on any host, or undefined: what a replay calls a
 * "model-shaped" request. The one place a replay recognises a model call outside the intercepted hosts,
 * so that a broader recogniser can replace the adapters' own method-and-path detection here alone.
 *
 * @example
 * modelShaped({ method: 'POST', url: 'http://127.0.0.1:8787/v1/chat/completions' })?.id // 'openai-chat'
 */
export function modelShaped(request: RequestLine): ProviderAdapter | undefined {
  return findAdapter(request)
}
