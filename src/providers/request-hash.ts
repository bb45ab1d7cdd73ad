import { createHash } from 'node:crypto'
import { canonicalStringify } from '../case/internal/canonical-json.ts'
import type { NormalizedRequest } from '../case/schema/normalized.ts'

/**
 * Body fields that change from run to run without changing what the model is asked: end-user ids,
 * cache keys, free-form metadata. They never take part in the hash. (SDK headers, retry counts and
 * idempotency keys never do either: only the API-version headers below are hashed.)
 */
export const VOLATILE_PARAMS: readonly string[] = [
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'metadata',
  'store',
  'service_tier',
]

/** Request headers that select the API's behaviour, and so are part of what was asked. */
export const HASHED_HEADERS: readonly string[] = ['anthropic-version', 'anthropic-beta']

export interface RequestHashInput {
  method: string
  url: string | URL
  headers: Readonly<Record<string, string>>
  normalized: NormalizedRequest
}

export interface RequestHashOptions {
  /** More `params.extra` fields to leave out (wire names), on top of VOLATILE_PARAMS. */
  ignoreParams?: readonly string[]
}

/**
 * The identity of a model request: sha256 over the method, the path (not the host, so a recording
 * made against one base URL replays against another), the API-version headers and the canonical
 * normalized request without volatile fields. Stable across runs, header changes and SDK versions.
 *
 * @example
 * requestHash({ method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, normalized })
 * // 'sha256:3f1c…'
 */
export function requestHash(input: RequestHashInput, options: RequestHashOptions = {}): string {
  const url = typeof input.url === 'string' ? new URL(input.url) : input.url
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(input.headers)) {
    const key = name.toLowerCase()
    if (HASHED_HEADERS.includes(key))
      headers[key] = value
        .split(',')
        .map((v) => v.trim())
        .sort()
        .join(',')
  }
  const extra = input.normalized.params.extra
  let params = input.normalized.params
  if (extra) {
    const ignore = options.ignoreParams ? [...VOLATILE_PARAMS, ...options.ignoreParams] : VOLATILE_PARAMS
    const kept: Record<string, unknown> = {}
    let dropped = false
    for (const key of Object.keys(extra)) {
      if (ignore.includes(key)) dropped = true
      else kept[key] = extra[key]
    }
    if (dropped) params = { ...params, extra: kept as typeof extra }
  }
  const identity = {
    method: input.method.toUpperCase(),
    path: url.pathname.replace(/\/+$/, ''),
    headers,
    request: params === input.normalized.params ? input.normalized : { ...input.normalized, params },
  }
  return `sha256:${createHash('sha256').update(canonicalStringify(identity)).digest('hex')}`
}
