import type { ServerResponse } from 'node:http'
import type { JsonValue } from '../../case/schema/json.ts'
import { labelHttpCall } from '../../providers/labels.ts'
import { apiErrorBody, errorFamily } from './error-bodies.ts'
import { type IncomingCall, sendBody, sendJson } from './http-io.ts'

/**
 * The calls SDKs and agent frameworks make besides model calls: listing or looking up models (a
 * health check, a model picker) and the OpenAI Agents SDK's trace upload. Answering them keeps such
 * code working against the scripted provider; everything else gets a 404 that says what is served.
 */

/** The APIs the scripted provider speaks, for the 404 message. */
export const SUPPORTED_APIS =
  'OpenAI chat (POST /v1/chat/completions), OpenAI Responses (POST /v1/responses), Anthropic Messages (POST /v1/messages) ' +
  'and Gemini (POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse, or the same under /v1)'

/**
 * Answers a call that is not a model call; returns the status sent.
 *
 * @example
 * serveSideRoute(res, call, 'gpt-4o-mini') // 200 for GET /v1/models, 404 for GET /nope
 */
export function serveSideRoute(res: ServerResponse, call: IncomingCall, model: string): number {
  const family = errorFamily(null, call.pathname, call.headers)
  const label = labelHttpCall({ method: call.wire.method, url: call.wire.url })
  const id = decodeURIComponent(call.pathname.split('/').pop() ?? model).replace(/^models\//, '')
  let body: JsonValue | undefined
  if (label === 'models.list') body = modelList(family, model)
  else if (label === 'models.retrieve') body = modelEntry(family, id)
  else if (label === 'traces.ingest') {
    // The Agents SDK posts traces in the background; a 204 ends them quietly.
    sendBody(res, 204, 'text/plain', '')
    return 204
  }
  if (body !== undefined) {
    sendJson(res, 200, body)
    return 200
  }
  const message =
    `[crashlab] the scripted provider has no route for ${call.wire.method} ${call.path}. ` +
    `It speaks ${SUPPORTED_APIS}, plus GET /v1/models. ` +
    `Check the base URL: OpenAI clients need ${origin(call)}/v1, Anthropic clients ${origin(call)}, ` +
    `Gemini httpOptions: { baseUrl: '${origin(call)}' }.`
  sendJson(res, 404, apiErrorBody(family, 404, 'not_found', message))
  return 404
}

function modelList(family: ReturnType<typeof errorFamily>, model: string): JsonValue {
  const entry = modelEntry(family, model)
  switch (family) {
    case 'openai':
      return { object: 'list', data: [entry] }
    case 'anthropic':
      return { data: [entry], has_more: false, first_id: model, last_id: model }
    case 'gemini':
      return { models: [entry] }
  }
}

function modelEntry(family: ReturnType<typeof errorFamily>, model: string): JsonValue {
  switch (family) {
    case 'openai':
      return { id: model, object: 'model', created: 1_700_000_000, owned_by: 'crashlab' }
    case 'anthropic':
      return { type: 'model', id: model, display_name: model, created_at: '2025-01-01T00:00:00Z' }
    case 'gemini':
      return {
        name: `models/${model}`,
        displayName: model,
        supportedGenerationMethods: ['generateContent', 'streamGenerateContent'],
      }
  }
}

function origin(call: IncomingCall): string {
  return new URL(call.wire.url).origin
}
