import { hash } from 'node:crypto'
import stableStringify from 'fast-json-stable-stringify'
import type { JsonValue } from '../../case/schema/json.ts'
import type { WireRequest } from '../../case/schema/step.ts'
import { redactDocument } from '../../redact/redact-document.ts'
import type { Redactor } from '../../redact/types.ts'

/**
 * A call that is not a model call, as it is matched at replay and diffed in a divergence: method, path
 * (no host, no trailing slash), query parameters by name, and the body: JSON (compared canonically),
 * text, or the sha256 and size of a binary body. All of it redacted, at record and at replay alike.
 */
export interface HttpShape {
  method: string
  path: string
  /** Each parameter by name; a repeated one as the list of its values, in order. */
  query: Record<string, string | string[]>
  /** The JSON body, without the Session's `ignoreParams` fields at its top level; null when none. */
  body: JsonValue | null
  bodyText?: string
  /** A binary body (a sidecar file), by its content. */
  bodyFile?: { sha256: string; bytes: number }
}

/** What the key of an http call depends on besides the request. */
export interface HttpKeyOptions {
  redactor?: Redactor | undefined
  /** Top-level JSON body fields left out (the Session's `matching.ignoreParams`). */
  ignoreParams?: readonly string[] | undefined
}

/**
 * The identity of a call that is not a model call, and the shape it is taken over (see `HttpShape`).
 * The URL and the body are redacted as the cassette writer redacts them, and query values under a
 * sensitive name are replaced too: redacting what a cassette already holds changes nothing, so a live
 * call and its redacted recording key the same, and a secret in a URL or a body never breaks matching.
 *
 * @example
 * httpKey({ method: 'GET', url: 'https://api.example.com/v1/orders?page=2', headers: {}, body: null }).hash
 */
export function httpKey(
  wire: WireRequest,
  options: HttpKeyOptions = {},
): { hash: string; matched: HttpShape } {
  const { redactor } = options
  const redacted = redactDocument(
    { url: wire.url, body: withoutParams(wire.body, options.ignoreParams), bodyText: wire.bodyText ?? null },
    { redactor },
  ).value
  const { path, query } = splitUrl(redacted.url, redactor)
  const shape: HttpShape = { method: wire.method.toUpperCase(), path, query, body: redacted.body }
  if (redacted.bodyText !== null) shape.bodyText = redacted.bodyText
  if (wire.bodyFile) shape.bodyFile = { sha256: wire.bodyFile.sha256, bytes: wire.bodyFile.bytes }
  // Both sides are keyed at replay (an http step stores no hash) and the shape is redacted JSON, on
  // which any sorted-key form keys equal shapes equally: the library's UTF-16 key order is enough here
  // (docs/cassette.md, "Canonical JSON and fast-json-stable-stringify").
  return { hash: `sha256:${hash('sha256', stableStringify(shape), 'hex')}`, matched: shape }
}

function withoutParams(body: JsonValue | null, ignore: readonly string[] | undefined): JsonValue | null {
  if (!ignore?.length || typeof body !== 'object' || body === null || Array.isArray(body)) return body
  if (!ignore.some((key) => Object.hasOwn(body, key))) return body
  const out: Record<string, JsonValue> = {}
  for (const key of Object.keys(body)) {
    if (!ignore.includes(key)) Object.defineProperty(out, key, { value: body[key], enumerable: true })
  }
  return out
}

function splitUrl(url: string, redactor: Redactor | undefined): Pick<HttpShape, 'path' | 'query'> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { path: url, query: {} }
  }
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [name, value] of parsed.searchParams) {
    const before = query[name]
    query[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value]
  }
  // By name: `?session_token=…` is replaced whatever its value looks like.
  return {
    path: parsed.pathname.replace(/\/+$/, ''),
    query: redactDocument(query, { redactor }).value,
  }
}
