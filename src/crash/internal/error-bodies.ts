import type { JsonObject } from '../../case/schema/json.ts'
import type { ProviderId } from '../../providers/types.ts'

/**
 * The error bodies each API sends for a rate limit and a server error, in its own shape, so that every
 * SDK builds its typed error (status, error type, message) exactly as it would from the live API, and
 * the gateway HTML pages a proxy in front of any of them sends.
 */

type ErrorStatus = 429 | 500

const OPENAI: Record<ErrorStatus, JsonObject> = {
  429: {
    error: {
      message: 'Rate limit reached for requests (injected by a crashlab crash test).',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    },
  },
  500: {
    error: {
      message: 'The server had an error while processing your request (injected by a crashlab crash test).',
      type: 'server_error',
      param: null,
      code: null,
    },
  },
}

const ANTHROPIC: Record<ErrorStatus, JsonObject> = {
  429: {
    type: 'error',
    error: { type: 'rate_limit_error', message: 'Rate limited (injected by a crashlab crash test).' },
  },
  500: {
    type: 'error',
    error: { type: 'api_error', message: 'Internal server error (injected by a crashlab crash test).' },
  },
}

const GEMINI: Record<ErrorStatus, JsonObject> = {
  429: {
    error: {
      code: 429,
      message: 'Resource has been exhausted (injected by a crashlab crash test).',
      status: 'RESOURCE_EXHAUSTED',
    },
  },
  500: {
    error: {
      code: 500,
      message: 'An internal error has occurred (injected by a crashlab crash test).',
      status: 'INTERNAL',
    },
  },
}

/** The JSON error body `provider` sends with `status`. */
export function errorBody(provider: ProviderId, status: ErrorStatus): JsonObject {
  if (provider === 'anthropic-messages') return ANTHROPIC[status]
  if (provider === 'gemini') return GEMINI[status]
  return OPENAI[status]
}

const TITLES = { 502: '502 Bad Gateway', 503: '503 Service Temporarily Unavailable' } as const

/** A reverse proxy's error page, as nginx writes it. */
export function gatewayPage(status: 502 | 503): string {
  const title = TITLES[status]
  return (
    `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n` +
    `<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`
  )
}
