import type { JsonValue } from '../../case/schema/json.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import type { Redactor } from '../../redact/types.ts'
import { isBinaryMediaType, readBinaryBody } from './binary-body.ts'
import type { ExchangeRequest } from './plain-request.ts'

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
 * Bodies a session-bound fetch was handed as a string (what the SDKs send: their JSON), kept beside the
 * Request it built instead of inside it: undici would wrap the string in a ReadableStream only for
 * `readRequest` to read it back, which cost more than the rest of a replayed call (see bench/README.md).
 */
const STRING_BODIES = new WeakMap<Request, string>()

/**
 * The Request a `fetch(input, init)` call describes, as `handleExchange` reads it. A string body is not
 * streamed through the Request: `readRequest` takes it as it is (the caller sends the original
 * arguments upstream when the request goes there unchanged). Everything else the Request says (method,
 * URL, headers, the errors its constructor throws) is as `new Request(input, init)` would say it.
 *
 * `followSignal: false` leaves the caller's signal out, for a replay: nothing is sent, so nothing reads
 * it, and following it costs an abort listener and a weak reference per call.
 *
 * @example
 * const request = requestOf('https://api.openai.com/v1/chat/completions', { method: 'POST', body: '{}' })
 */
export function requestOf(
  input: string | URL | Request,
  init: RequestInit | undefined,
  options: { followSignal: boolean } = { followSignal: true },
): Request {
  const body = init?.body
  const signal = init?.signal
  // Only an AbortSignal is left out: anything else goes to the constructor, which throws on it.
  const dropSignal = !options.followSignal && signal instanceof AbortSignal
  if (typeof body === 'string' && !(input instanceof Request)) {
    const request = new Request(input, {
      ...init,
      body: undefined,
      ...(dropSignal ? { signal: undefined } : {}),
    })
    // GET and HEAD cannot have a body: the full constructor throws the error fetch would.
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      // What undici adds for a string body when the caller named no type.
      if (!request.headers.has('content-type'))
        request.headers.set('content-type', 'text/plain;charset=UTF-8')
      STRING_BODIES.set(request, body)
      return request
    }
  }
  return new Request(input, {
    ...init,
    ...(body ? { duplex: 'half' } : {}),
    ...(dropSignal ? { signal: undefined } : {}),
  } as RequestInit)
}

/**
 * Reads `request`'s body (once: a Request body is a stream) and builds the WireRequest crashlab stores.
 * A `PlainRequest`'s body, or a string body kept beside a Request, is read as it is and the result
 * comes back at once, not as a promise: a replayed call then waits on nothing (each promise also pays
 * the AsyncLocalStorage hook). A binary body is stored redacted with `redactor` (see `readBinaryBody`).
 *
 * @example
 * const { wire, bytes } = await readRequest(new Request(url, { method: 'POST', body: '{"a":1}' }))
 */
export function readRequest(
  request: ExchangeRequest,
  redactor?: Redactor,
): ReadRequest | Promise<ReadRequest> {
  const isRequest = isFetchRequest(request)
  const plainBody = isRequest ? undefined : request.body
  const known = isRequest ? STRING_BODIES.get(request) : typeof plainBody === 'string' ? plainBody : undefined
  if (known !== undefined) return wireOf(request, known, redactor)
  if (!isRequest) return wireOf(request, (plainBody as Uint8Array | null) ?? null, redactor)
  if (!request.body) return wireOf(request, null, redactor)
  return request.arrayBuffer().then((buffer) => wireOf(request, new Uint8Array(buffer), redactor))
}

/**
 * The wire form of a request whose body was read: bytes, or the string the caller handed over. A string
 * is encoded only when something needs its bytes (a binary body, a string UTF-8 would change, a request
 * that goes upstream): a replayed JSON call never does.
 */
function wireOf(
  request: ExchangeRequest,
  body: Uint8Array | string | null,
  redactor: Redactor | undefined,
): ReadRequest {
  const headers: Record<string, string> = {}
  for (const name of STORED_REQUEST_HEADERS) {
    const value = headerOf(request.headers, name)
    if (value !== null) headers[name] = value
  }
  const wire: WireRequest = {
    method: request.method.toUpperCase(),
    url: storedUrl(request.url),
    headers,
    body: null,
  }
  let bytes = typeof body === 'string' ? undefined : body
  const encoded = () => (bytes ??= encoder.encode(body as string))
  if (body !== null && body.length > 0) {
    const type = headers['content-type']
    const binary = isBinaryMediaType(type) ? readBinaryBody(encoded(), type, redactor) : undefined
    if (binary) {
      // The stored bytes' own content type: a multipart body is stored with a fixed boundary.
      headers['content-type'] = binary.contentType
      wire.bodyFile = binary.bodyFile
    } else {
      const text = typeof body === 'string' ? asDecoded(body) : undefined
      Object.assign(wire, readBody(text ?? encoded(), type))
    }
  }
  if (bytes !== undefined) return { wire, bytes }
  return {
    wire,
    get bytes() {
      return encoded()
    },
  }
}

/**
 * True for a fetch `Request`. By shape, not `instanceof`: a Request from another copy of undici (an
 * interceptor's own) is still one, and must have its body streamed out, not taken as it is.
 *
 * @example
 * isFetchRequest(new Request('https://example.com')) // true
 */
export function isFetchRequest(request: ExchangeRequest): request is Request {
  return typeof (request as Partial<Request>).arrayBuffer === 'function'
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A header of either shape; a plain record is matched without regard to case, as `Headers` matches. */
function headerOf(headers: Headers | Record<string, string>, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name)
  let found: string | null = null
  for (const key in headers) {
    if (key.toLowerCase() !== name) continue
    const value = String(headers[key]).trim()
    found = found === null ? value : `${found}, ${value}`
  }
  return found
}

/**
 * `text` as `TextDecoder` reads back its UTF-8 bytes: the same string unless it holds a lone surrogate
 * (which becomes U+FFFD) or starts with a byte-order mark (which is dropped). Undefined then: decode.
 */
function asDecoded(text: string): string | undefined {
  const wellFormed = (text as string & { isWellFormed(): boolean }).isWellFormed()
  return wellFormed && text.charCodeAt(0) !== 0xfeff ? text : undefined
}

/**
 * The body as JSON when it is JSON; as text when it is text; otherwise nothing (binary uploads). `body`
 * is the bytes, or the text they decode to when the caller already holds it.
 */
export function readBody(
  body: Uint8Array | string,
  contentType: string | null | undefined,
): { body: JsonValue | null; bodyText?: string } {
  const type = (contentType ?? '').toLowerCase()
  const text = typeof body === 'string' ? body : decoder.decode(body)
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
