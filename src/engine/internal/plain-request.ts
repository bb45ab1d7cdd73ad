import { isFetchRequest, requestOf } from './read-request.ts'

/**
 * A request as `handleExchange` reads it, without an undici `Request`: building one (its URL record,
 * init conversion, header guard, body stream, signal follower) was the largest part of what a replayed
 * call through `wrap(client)` cost (see bench/README.md). The MSW path hands a real `Request` instead.
 *
 * @example
 * const req: PlainRequest = { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: '{}' }
 */
export interface PlainRequest {
  method: string
  /** The serialized URL, as `Request.url` would give it. */
  url: string
  headers: Headers | Record<string, string>
  body: string | Uint8Array | null
  signal?: AbortSignal | null
}

/** What `handleExchange` accepts: a fetch `Request` (MSW) or a `PlainRequest` (`sessionFetch`). */
export type ExchangeRequest = Request | PlainRequest

/** Methods undici uppercases; any other spelling it keeps as given. */
const NORMALIZED_METHODS = new Set(['DELETE', 'OPTIONS', 'POST', 'PUT'])
/** `init` members the light path understands; any other one (set) takes the full `Request`. */
const PLAIN_INIT_KEYS = new Set(['method', 'headers', 'body', 'signal', 'duplex', 'dispatcher'])

/**
 * The request a `fetch(input, init)` call describes: a `PlainRequest` for the common shape (a string
 * or URL input, a string body, a body-carrying method, only the usual init members), otherwise what
 * `requestOf` builds. The light path reads as the full `Request` would; anything it cannot vouch for
 * (an invalid URL, credentials in it, odd headers or methods) goes to the full constructor, which
 * throws the error fetch would.
 *
 * @example
 * const request = exchangeRequestOf(url, { method: 'POST', body: '{}' }, { followSignal: false })
 */
export function exchangeRequestOf(
  input: string | URL | Request,
  init: RequestInit | undefined,
  options: { followSignal: boolean },
): ExchangeRequest {
  return plainOf(input, init, options) ?? requestOf(input, init, options)
}

function plainOf(
  input: string | URL | Request,
  init: RequestInit | undefined,
  options: { followSignal: boolean },
): PlainRequest | undefined {
  if (!init || typeof init.body !== 'string' || input instanceof Request) return undefined
  for (const key in init) {
    if (!PLAIN_INIT_KEYS.has(key) && (init as Record<string, unknown>)[key] !== undefined) return undefined
  }
  const { method: asked = 'GET', signal, duplex } = init as RequestInit & { duplex?: unknown }
  if (typeof asked !== 'string' || (duplex !== undefined && duplex !== 'half')) return undefined
  const upper = asked.toUpperCase()
  const method = NORMALIZED_METHODS.has(upper) ? upper : asked === 'PATCH' ? asked : undefined
  if (method === undefined) return undefined
  if (signal != null && !(signal instanceof AbortSignal)) return undefined
  let url: URL
  let headers: Headers
  try {
    url = typeof input === 'string' ? new URL(input) : new URL(input.href)
    // A Headers the caller built (the OpenAI and Anthropic SDKs do) is already validated and
    // normalized: it is read as it is, never written to. Anything else is copied, as fetch copies it.
    const given = init.headers
    headers = given instanceof Headers && given.has('content-type') ? given : new Headers(given)
  } catch {
    return undefined
  }
  if (url.username || url.password) return undefined
  // What undici adds for a string body when the caller named no type (on the copy: `given` had one).
  if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8')
  return {
    method,
    url: url.href,
    headers,
    body: init.body,
    signal: options.followSignal ? signal : undefined,
  }
}

/**
 * A real `Request` for a `PlainRequest` (an upstream that needs one); a `Request` is returned as it is.
 *
 * @example
 * await fetch(toRequest(request))
 */
export function toRequest(request: ExchangeRequest): Request {
  if (isFetchRequest(request)) return request
  const { method, url, headers, body, signal } = request
  return new Request(url, { method, headers, body, signal })
}
