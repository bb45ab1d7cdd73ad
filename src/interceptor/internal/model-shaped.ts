import { findAdapter } from '../../providers/registry.ts'
import type { ProviderAdapter, ProviderId, RequestLine } from '../../providers/types.ts'

/**
 * A request as the recogniser reads it: method and URL, and its body when it was read. `body` is the
 * parsed JSON (anything else that was read counts as `undefined` with `bodyRead: true`).
 */
export interface ShapedRequest extends RequestLine {
  /** The body parsed as JSON; only looked at when `bodyRead` is true. */
  body?: unknown
  /** True when the body was read: it then decides. False or absent: method and path alone decide. */
  bodyRead?: boolean
}

/**
 * The adapter whose wire API a request calls, on any host, or undefined: what crashlab calls a
 * "model-shaped" request. The one recogniser of a model call outside the listed hosts: the
 * interceptor records and replays what it recognises, and the replay rule refuses it when no cassette
 * answers it.
 *
 * Method and path pick the API (the adapters' own detection: `POST …/chat/completions`,
 * `…/responses`, `…/v1/messages`, `…/models/{m}:generateContent`). When the body was read it decides,
 * since other protocols reuse such paths (MCP's HTTP+SSE transport posts JSON-RPC to `/messages`): a
 * JSON object of that API's shape, and not a JSON-RPC envelope (see `bodyFits`). Without the body (a
 * connection seen at the socket) method and path alone decide.
 *
 * @example
 * modelShaped({ method: 'POST', url: 'http://127.0.0.1:8787/v1/chat/completions' })?.id // 'openai-chat'
 * modelShaped({ method: 'POST', url: 'http://127.0.0.1:3001/v1/messages', bodyRead: true, body: { jsonrpc: '2.0', method: 'tools/list', id: 1 } }) // undefined
 */
export function modelShaped(request: ShapedRequest): ProviderAdapter | undefined {
  const adapter = findAdapter(request)
  if (!adapter || !request.bodyRead) return adapter
  return bodyFits(adapter.id, request.body) ? adapter : undefined
}

/**
 * `modelShaped` of a fetch `Request`, its body read from a clone (the request itself stays unread for
 * whoever answers it). The body is read only when method and path already match an API, so that other
 * requests cost nothing.
 *
 * @example
 * const adapter = await readModelShaped(request) // in an MSW handler
 */
export async function readModelShaped(request: Request): Promise<ProviderAdapter | undefined> {
  const line = { method: request.method, url: request.url }
  if (!findAdapter(line)) return undefined
  let body: unknown
  try {
    body = JSON.parse(await request.clone().text())
  } catch {
    // Not JSON (or not readable): no API crashlab reads sends that.
    body = undefined
  }
  return modelShaped({ ...line, body, bodyRead: true })
}

/**
 * Whether a body has the shape of the API's request (the fields each API requires; see
 * docs/interceptor.md, "Model calls on any host"). Never a JSON-RPC envelope.
 */
function bodyFits(api: ProviderId, body: unknown): boolean {
  if (!isObject(body) || 'jsonrpc' in body) return false
  switch (api) {
    case 'openai-chat':
      // Azure OpenAI names the model (its deployment) in the path, and its body may carry none.
      return Array.isArray(body.messages) && (body.model === undefined || typeof body.model === 'string')
    case 'openai-responses':
      return typeof body.model === 'string' && (typeof body.input === 'string' || Array.isArray(body.input))
    case 'anthropic-messages':
      return (
        typeof body.model === 'string' && Array.isArray(body.messages) && typeof body.max_tokens === 'number'
      )
    case 'gemini':
      // The model is in the path.
      return Array.isArray(body.contents)
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
