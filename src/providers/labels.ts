import type { RequestLine } from './types.ts'

/**
 * Calls on a provider's host that are not model calls, by what they are: an agent lists models,
 * embeds text, uploads files, and the OpenAI Agents SDK posts traces. They are recorded as `http`
 * steps with this label, never treated as errors.
 */
const RULES: ReadonlyArray<{ label: string; method?: string; path: RegExp }> = [
  { label: 'traces.ingest', method: 'POST', path: /\/traces\/ingest$/ },
  { label: 'models.list', method: 'GET', path: /\/models$/ },
  { label: 'models.retrieve', method: 'GET', path: /\/models\/[^/:]+$/ },
  { label: 'embeddings.create', method: 'POST', path: /\/embeddings$|:(?:embedContent|batchEmbedContents)$/ },
  {
    label: 'tokens.count',
    method: 'POST',
    path: /\/messages\/count_tokens$|:countTokens$|\/responses\/input_tokens$/,
  },
  { label: 'files.create', method: 'POST', path: /\/(?:files|uploads)$/ },
  { label: 'files.list', method: 'GET', path: /\/files$/ },
  { label: 'files.retrieve', method: 'GET', path: /\/files\/[^/]+(?:\/content)?$/ },
  { label: 'files.delete', method: 'DELETE', path: /\/files\/[^/]+$/ },
  { label: 'batches', path: /\/(?:messages\/)?batches(?:\/|$)/ },
  { label: 'moderations.create', method: 'POST', path: /\/moderations$/ },
  { label: 'audio', path: /\/audio\// },
  { label: 'images', path: /\/images\// },
  { label: 'responses.retrieve', method: 'GET', path: /\/responses\/[^/]+$/ },
  { label: 'conversations', path: /\/conversations(?:\/|$)/ },
]

/**
 * What a non-model call on a provider host is, e.g. `models.list`; `unknown` when crashlab does not know it.
 *
 * @example
 * labelHttpCall({ method: 'POST', url: 'https://api.openai.com/v1/traces/ingest' }) // 'traces.ingest'
 * labelHttpCall({ method: 'GET', url: 'https://api.anthropic.com/v1/models' })       // 'models.list'
 */
export function labelHttpCall(request: RequestLine): string {
  const url = typeof request.url === 'string' ? new URL(request.url) : request.url
  const path = url.pathname.replace(/\/+$/, '')
  const method = request.method.toUpperCase()
  for (const rule of RULES) {
    if (rule.method && rule.method !== method) continue
    if (rule.path.test(path)) return rule.label
  }
  return 'unknown'
}
