import type { ServerResponse } from 'node:http'
import type { Fault } from '../types.ts'
import {
  apiErrorBody,
  type ErrorFamily,
  gatewayPage,
  rateLimitMessage,
  serverErrorMessage,
} from './error-bodies.ts'
import { pause, sendBody, sendJson } from './http-io.ts'
import { type ReplyPlan, serveReply } from './serve-reply.ts'

/** What a fault needs: the error shape to speak, and the reply a cut or malformed stream carries. */
export interface FaultPlan {
  family: ErrorFamily
  model: string
  /** Request id headers, also sent with error answers, as the real APIs do. */
  headers: Record<string, string>
  /** The content of `cut_stream` and `malformed_json`. */
  reply: ReplyPlan
  signal: AbortSignal
}

/** Seconds in `retry-after` when the fault names none: short, so retrying SDKs do not stall a test. */
const DEFAULT_RETRY_AFTER = 1

/**
 * The status a fault sends, known before it is served (so that `requests` shows it at once); null
 * when no status is ever sent (timeout, reset).
 *
 * @example
 * faultStatus({ type: 'server_error', status: 502 }) // 502
 */
export function faultStatus(fault: Fault): number | null {
  switch (fault.type) {
    case 'rate_limit':
      return 429
    case 'server_error':
      return fault.status ?? 500
    case 'timeout':
    case 'reset':
      return null
    case 'cut_stream':
    case 'malformed_json':
      return 200
  }
}

/**
 * Serves a fault as a client would meet it in production.
 *
 * @example
 * await serveFault(res, { type: 'rate_limit', retryAfter: 2 }, plan) // a 429 with retry-after: 2
 */
export async function serveFault(res: ServerResponse, fault: Fault, plan: FaultPlan): Promise<void> {
  switch (fault.type) {
    case 'rate_limit': {
      const retryAfter = fault.retryAfter ?? DEFAULT_RETRY_AFTER
      const message = rateLimitMessage(plan.family, plan.model, retryAfter)
      sendJson(res, 429, apiErrorBody(plan.family, 429, 'rate_limit', message), {
        ...plan.headers,
        ...rateLimitHeaders(plan.family, retryAfter),
      })
      return
    }
    case 'server_error': {
      const status = fault.status ?? 500
      if (status === 500) {
        sendJson(
          res,
          500,
          apiErrorBody(plan.family, 500, 'server', serverErrorMessage(plan.family)),
          plan.headers,
        )
      } else {
        // A gateway answers for the API: its own page and headers, none of the API's.
        sendBody(res, status, 'text/html', gatewayPage(status), { server: 'nginx' })
      }
      return
    }
    case 'timeout':
      // Nothing is sent. Without `afterMs` the exchange waits for the client to give up or for close().
      if (fault.afterMs === undefined) return
      await pause(fault.afterMs, plan.signal)
      res.destroy()
      return
    case 'reset':
      // RST rather than FIN: the client sees ECONNRESET, as when a load balancer kills the connection.
      res.socket?.resetAndDestroy()
      return
    case 'cut_stream':
      await serveReply(res, { ...plan.reply, cutAfterEvents: fault.afterEvents })
      return
    case 'malformed_json':
      await serveReply(res, { ...plan.reply, malformed: true })
      return
  }
}

function rateLimitHeaders(family: ErrorFamily, retryAfter: number): Record<string, string> {
  const common = { 'retry-after': String(retryAfter) }
  switch (family) {
    case 'openai':
      return {
        ...common,
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': `${retryAfter}s`,
      }
    case 'anthropic':
      return { ...common, 'anthropic-ratelimit-requests-remaining': '0' }
    case 'gemini':
      return common
  }
}
