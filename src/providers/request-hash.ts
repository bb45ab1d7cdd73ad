import { hash } from 'node:crypto'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import { hashText } from './internal/hash-text.ts'

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
  const headers: string[] = []
  for (const name of Object.keys(input.headers)) {
    const key = name.toLowerCase()
    if (HASHED_HEADERS.includes(key)) {
      const value = input.headers[name]!.split(',')
        .map((v) => v.trim())
        .sort()
        .join(',')
      headers.push(`${key}:${value}`)
    }
  }
  headers.sort()
  const ignore = options.ignoreParams ? [...VOLATILE_PARAMS, ...options.ignoreParams] : VOLATILE_PARAMS
  const text = hashText(input.method.toUpperCase(), pathOf(input.url), headers, input.normalized, ignore)
  // One-shot `hash`: no Hash object per call (this runs on every intercepted model call).
  return `sha256:${hash('sha256', text, 'hex')}`
}

/** The URL's path without a trailing slash; cheaper than `new URL` on this hot path. */
function pathOf(url: string | URL): string {
  if (typeof url !== 'string') return url.pathname.replace(/\/+$/, '')
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(url)
  return (m ? m[1]! : new URL(url).pathname).replace(/\/+$/, '')
}
