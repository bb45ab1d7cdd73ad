import { createHash } from 'node:crypto'
import { canonicalStringify } from '../../case/internal/canonical-json.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { redactDocument } from '../../redact/redact-document.ts'
import type { Redactor } from '../../redact/types.ts'

/**
 * Request headers kept in a step. An allow-list, not a deny-list: a header crashlab does not know could
 * carry a secret (a gateway token, a cookie), and redaction is the second line, not the first. These
 * say what was asked (body type, streaming, API version and betas); SDK telemetry such as
 * `x-goog-api-client` and `x-stainless-*` changes with every SDK release and is left out.
 */
export const STORED_REQUEST_HEADERS: readonly string[] = [
  'content-type',
  'accept',
  'anthropic-version',
  'anthropic-beta',
  'openai-beta',
]

/** Query parameters that carry credentials (Gemini's `key=`): dropped from the stored URL. */
const SECRET_QUERY_PARAMS = ['key', 'api_key', 'access_token']

/** A request read once: the bytes to forward, and the wire form to store. */
export interface ReadRequest {
  wire: WireRequest
  bytes: Uint8Array | null
}

/**
 * Reads `request`'s body (once: a Request body is a stream) and builds the WireRequest crashlab stores.
 *
 * @example
 * const { wire, bytes } = await readRequest(new Request(url, { method: 'POST', body: '{"a":1}' }))
 */
export async function readRequest(request: Request): Promise<ReadRequest> {
  const bytes = request.body ? new Uint8Array(await request.arrayBuffer()) : null
  const headers: Record<string, string> = {}
  for (const name of STORED_REQUEST_HEADERS) {
    const value = request.headers.get(name)
    if (value !== null) headers[name] = value
  }
  const wire: WireRequest = {
    method: request.method.toUpperCase(),
    url: storedUrl(request.url),
    headers,
    body: null,
  }
  if (bytes && bytes.length > 0) Object.assign(wire, readBody(bytes, headers['content-type']))
  return { wire, bytes }
}

/** The body as JSON when it is JSON; as text when it is text; otherwise nothing (binary uploads). */
export function readBody(
  bytes: Uint8Array,
  contentType: string | null | undefined,
): { body: JsonValue | null; bodyText?: string } {
  const type = (contentType ?? '').toLowerCase()
  const text = new TextDecoder().decode(bytes)
  if (type.includes('json') || type === '' || /^\s*[[{]/.test(text)) {
    try {
      return { body: JSON.parse(text) as JsonValue }
    } catch {
      // not JSON after all: kept as text below when it is text
    }
  }
  if (type === '' || type.startsWith('text/') || type.includes('json') || type.includes('urlencoded')) {
    return { body: null, bodyText: text }
  }
  return { body: null }
}

/** The URL without credentials in its query string. */
export function storedUrl(url: string): string {
  if (!url.includes('?')) return url
  const parsed = new URL(url)
  let changed = false
  for (const name of SECRET_QUERY_PARAMS) {
    if (parsed.searchParams.has(name)) {
      parsed.searchParams.delete(name)
      changed = true
    }
  }
  return changed ? parsed.toString() : url
}

/**
 * The identity of a call that is not a model call: method, path and query, and the redacted body.
 * Computed on both sides at replay (the http step has no stored hash), always over redacted data, so
 * a secret in a body never breaks matching.
 */
export function httpHash(wire: WireRequest, redactor?: Redactor): string {
  const url = new URL(wire.url)
  const body = redactDocument({ body: wire.body, text: wire.bodyText ?? null }, { redactor }).value
  const text = `${wire.method.toUpperCase()} ${url.pathname.replace(/\/+$/, '')}${url.search}\n${canonicalStringify(body)}`
  return `sha256:${createHash('sha256').update(text).digest('hex')}`
}
