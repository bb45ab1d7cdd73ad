import { canonicalStringify } from '../../case/canonical-json.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { SseChunk, Step, WireRequest, WireResponse } from '../../case/schema/step.ts'
import type { Session } from '../../engine/session.ts'
import { redactDocument } from '../../redact/redact-document.ts'
import { type McpMessage, readMcpMessages } from '../mcp-message.ts'

/** Request headers an MCP step keeps: what was asked, never `Authorization` or the session id. */
const STORED_HEADERS = ['content-type', 'accept', 'mcp-protocol-version']
/** Query parameters that carry credentials: dropped from the stored URL. */
const SECRET_QUERY_PARAMS = ['key', 'api_key', 'access_token', 'token']

/**
 * The wire form of an MCP POST as a step stores it: method, URL (no credentials in its query string),
 * the allow-listed headers, and the JSON body.
 */
export function mcpWireRequest(request: Request, text: string): WireRequest {
  const headers: Record<string, string> = {}
  for (const name of STORED_HEADERS) {
    const value = request.headers.get(name)
    if (value !== null) headers[name] = value
  }
  return { method: 'POST', url: storedUrl(request.url), headers, body: JSON.parse(text) as JsonValue }
}

/** A request's URL as an MCP step stores it: without the query parameters that carry credentials. */
export function storedUrl(requestUrl: string): string {
  const url = new URL(requestUrl)
  for (const name of SECRET_QUERY_PARAMS) url.searchParams.delete(name)
  return url.toString()
}

/** An MCP step of a recording: a `tool` step from `tools/call`, or an `http` step labelled `mcp:…`. */
export function isMcpStep(step: Step): boolean {
  return step.type === 'tool' ? step.mcp !== undefined : step.type === 'http' && step.label.startsWith('mcp:')
}

/** The recorded request and answer of an MCP step. */
export function mcpWireOf(step: Step): { request: WireRequest; response: WireResponse | null } | undefined {
  if (step.type === 'tool') return step.mcp && { request: step.mcp.request, response: step.mcp.response }
  if (step.type === 'http' && step.label.startsWith('mcp:'))
    return { request: step.request, response: step.response }
  return undefined
}

/**
 * What an MCP exchange is matched on: each message's method and params (without `_meta`, which holds a
 * per-call progress token), or a response's result or error. Never the JSON-RPC id, the session id or
 * the URL. Redacted under the Session's rules, as the cassette holds the recorded side.
 */
export function matchShape(messages: readonly McpMessage[]): JsonValue {
  return messages.map((m) =>
    m.kind === 'response'
      ? (toJson(m.error === undefined ? { result: m.result } : { error: m.error }) as JsonValue)
      : ({ method: m.method, params: withoutMeta(m.params) } as JsonValue),
  )
}

/** The match key of a live exchange's messages. */
export function matchKey(session: Session, messages: readonly McpMessage[]): string {
  return canonicalStringify(redactDocument(matchShape(messages), { redactor: session.redactor }).value)
}

const RECORDED_KEYS = new WeakMap<Step, string>()

/** The match key of a recorded MCP step, kept per step (a replay looks at the unused ones on every call). */
export function recordedKey(session: Session, step: Step): string | undefined {
  let key = RECORDED_KEYS.get(step)
  if (key === undefined) {
    const messages = recordedMessages(step)
    if (!messages) return undefined
    key = matchKey(session, messages)
    RECORDED_KEYS.set(step, key)
  }
  return key
}

/** The MCP messages a recorded MCP step's request held. */
export function recordedMessages(step: Step): McpMessage[] | undefined {
  const wire = mcpWireOf(step)
  return wire && readMcpMessages(wire.request.body)
}

function withoutMeta(params: unknown): unknown {
  if (typeof params !== 'object' || params === null || Array.isArray(params) || !('_meta' in params))
    return params ?? null
  const { _meta: _, ...rest } = params as Record<string, unknown>
  return rest
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : value
}

/**
 * The JSON-RPC answer to `id` in a recorded response: the JSON body (one message or a batch) or, for
 * an SSE response, the event that carries it.
 */
export function rpcAnswer(
  response: WireResponse,
  id: string | number,
): { result?: unknown; error?: { code?: unknown; message?: unknown } } | undefined {
  for (const message of responseMessages(response)) {
    if (!isObject(message) || message.id !== id || 'method' in message) continue
    if ('result' in message || 'error' in message) return message as { result?: unknown; error?: never }
  }
  return undefined
}

function responseMessages(response: WireResponse): unknown[] {
  if (response.chunks) return response.chunks.flatMap((c) => asList(parseData(c.data)))
  return asList(response.body)
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value]
}

function parseData(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    return undefined
  }
}

/**
 * A recorded answer readdressed to the live request: each JSON-RPC response to a recorded request id
 * carries the live request's id instead (paired by position), and a progress notification the recorded
 * progress token. Everything else (the framing, the events, the server's own requests) is as recorded.
 */
export function readdressed(
  response: WireResponse,
  recorded: readonly McpMessage[],
  live: readonly McpMessage[],
): WireResponse {
  const ids = new Map<unknown, string | number>()
  const tokens = new Map<unknown, unknown>()
  const liveRequests = live.filter((m) => m.kind === 'request')
  recorded
    .filter((m) => m.kind === 'request')
    .forEach((m, i) => {
      const now = liveRequests[i]
      if (!now) return
      ids.set(m.id, now.id)
      const was = progressToken(m.params)
      if (was !== undefined) tokens.set(was, progressToken(now.params))
    })
  const fix = (message: unknown): { value: unknown; changed: boolean } => {
    if (!isObject(message)) return { value: message, changed: false }
    if (!('method' in message) && ids.has(message.id) && ids.get(message.id) !== message.id)
      return { value: { ...message, id: ids.get(message.id) }, changed: true }
    const params = message.params
    if (message.method === 'notifications/progress' && isObject(params) && tokens.has(params.progressToken)) {
      const token = tokens.get(params.progressToken)
      if (token !== undefined && token !== params.progressToken)
        return { value: { ...message, params: { ...params, progressToken: token } }, changed: true }
    }
    return { value: message, changed: false }
  }
  const fixAll = (value: unknown): { value: unknown; changed: boolean } => {
    if (!Array.isArray(value)) return fix(value)
    const out = value.map(fix)
    return { value: out.map((o) => o.value), changed: out.some((o) => o.changed) }
  }
  if (response.chunks) {
    const chunks: SseChunk[] = response.chunks.map((chunk) => {
      const parsed = parseData(chunk.data)
      if (parsed === undefined) return chunk
      const fixed = fixAll(parsed)
      return fixed.changed ? { ...chunk, data: JSON.stringify(fixed.value) } : chunk
    })
    return { ...response, chunks }
  }
  if (response.body === null) return response
  const fixed = fixAll(response.body)
  return fixed.changed ? { ...response, body: fixed.value as JsonValue } : response
}

function progressToken(params: unknown): unknown {
  if (!isObject(params) || !isObject(params._meta)) return undefined
  return params._meta.progressToken
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
