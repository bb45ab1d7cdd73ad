import type { JsonValue } from '../../case/schema/json.ts'
import type { ProviderId } from '../../providers/types.ts'

/**
 * Error answers in each API's own shape. SDKs read the message out of these shapes (OpenAI
 * `error.message`, Anthropic `error.message`, Gemini `error.message` and `error.status`), so an error
 * from the scripted provider reads in the client's exception like one from the real API.
 */

/** The families of error the scripted provider sends. */
export type ErrorKind = 'rate_limit' | 'server' | 'invalid_request' | 'not_found'

/** Which error shape to use: the OpenAI one serves both OpenAI APIs and anything unknown. */
export type ErrorFamily = 'openai' | 'anthropic' | 'gemini'

const OPENAI_TYPE: Record<ErrorKind, string> = {
  rate_limit: 'requests',
  server: 'server_error',
  invalid_request: 'invalid_request_error',
  not_found: 'invalid_request_error',
}
const OPENAI_CODE: Record<ErrorKind, string | null> = {
  rate_limit: 'rate_limit_exceeded',
  server: null,
  invalid_request: null,
  not_found: 'unknown_url',
}
const ANTHROPIC_TYPE: Record<ErrorKind, string> = {
  rate_limit: 'rate_limit_error',
  server: 'api_error',
  invalid_request: 'invalid_request_error',
  not_found: 'not_found_error',
}
const GEMINI_STATUS: Record<ErrorKind, string> = {
  rate_limit: 'RESOURCE_EXHAUSTED',
  server: 'INTERNAL',
  invalid_request: 'INVALID_ARGUMENT',
  not_found: 'NOT_FOUND',
}

/**
 * The error body an API sends. `code` overrides the OpenAI `code` field (crashlab's own errors put
 * their stable code there; the other two shapes have no such field, so the message carries it).
 *
 * @example
 * apiErrorBody('anthropic', 429, 'rate_limit', 'Slow down')
 * // { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } }
 */
export function apiErrorBody(
  family: ErrorFamily,
  status: number,
  kind: ErrorKind,
  message: string,
  code?: string,
): JsonValue {
  switch (family) {
    case 'openai':
      return { error: { message, type: OPENAI_TYPE[kind], param: null, code: code ?? OPENAI_CODE[kind] } }
    case 'anthropic':
      return { type: 'error', error: { type: ANTHROPIC_TYPE[kind], message } }
    case 'gemini':
      return { error: { code: status, message, status: GEMINI_STATUS[kind] } }
  }
}

/**
 * The error family of a request: from its API when known, else from the path and the headers the SDKs
 * send (Anthropic's `anthropic-version`, Gemini's `/v1beta` paths and `x-goog-api-key`).
 *
 * @example
 * errorFamily(null, '/v1/models', { 'anthropic-version': '2023-06-01' }) // 'anthropic'
 */
export function errorFamily(
  api: ProviderId | null,
  path: string,
  headers: Record<string, string>,
): ErrorFamily {
  if (api === 'anthropic-messages') return 'anthropic'
  if (api === 'gemini') return 'gemini'
  if (api !== null) return 'openai'
  if (headers['anthropic-version'] !== undefined) return 'anthropic'
  if (/^\/v1(?:beta|alpha)\//.test(path)) return 'gemini'
  if (headers['x-goog-api-key'] !== undefined) return 'gemini'
  return 'openai'
}

const RATE_LIMIT_MESSAGE: Record<ErrorFamily, (model: string, retryAfter: number) => string> = {
  openai: (model, s) =>
    `Rate limit reached for ${model} on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${s}s.`,
  anthropic: () =>
    'This request would exceed the rate limit for your organization of 50 requests per minute. Please retry after the time in the retry-after header.',
  gemini: () => 'Resource has been exhausted (e.g. check quota).',
}

const SERVER_ERROR_MESSAGE: Record<ErrorFamily, string> = {
  openai: 'The server had an error while processing your request. Sorry about that!',
  anthropic: 'Internal server error',
  gemini:
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
}

/** Marks every scripted fault, so that nobody mistakes a scripted 429 in a log for a real one. */
const SCRIPTED = ' (scripted by crashlab)'

/**
 * The message of a scripted 429, worded like the API's own.
 *
 * @example
 * rateLimitMessage('gemini', 'gemini-2.5-flash', 1) // 'Resource has been exhausted (e.g. check quota). (scripted by crashlab)'
 */
export function rateLimitMessage(family: ErrorFamily, model: string, retryAfter: number): string {
  return RATE_LIMIT_MESSAGE[family](model, retryAfter) + SCRIPTED
}

/**
 * The message of a scripted 500, worded like the API's own.
 *
 * @example
 * serverErrorMessage('anthropic') // 'Internal server error (scripted by crashlab)'
 */
export function serverErrorMessage(family: ErrorFamily): string {
  return SERVER_ERROR_MESSAGE[family] + SCRIPTED
}

const GATEWAY_TITLE: Record<502 | 503, string> = {
  502: '502 Bad Gateway',
  503: '503 Service Temporarily Unavailable',
}

/**
 * The page nginx sends when the upstream is down, byte for byte (CRLF line ends included): what an
 * agent gets from a provider behind a gateway, or from a self-hosted model behind a proxy, and what a
 * client that expects JSON must survive.
 *
 * @example
 * gatewayPage(502).startsWith('<html>\r\n<head><title>502 Bad Gateway</title></head>') // true
 */
export function gatewayPage(status: 502 | 503): string {
  const title = GATEWAY_TITLE[status]
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`
}
