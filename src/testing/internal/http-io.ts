import type { IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { JsonValue } from '../../case/schema/json.ts'
import type { WireRequest } from '../../case/schema/step.ts'

/** A request as read off the socket: the wire shape the adapters take, plus the path for routing. */
export interface IncomingCall {
  wire: WireRequest
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string
  /** The path alone, without a trailing slash, for routing. */
  pathname: string
  headers: Record<string, string>
}

/**
 * Reads the whole request. The adapters take a URL with a host, so the request's path is put on the
 * server's own origin.
 *
 * @example
 * const call = await readCall(req, 'http://127.0.0.1:4010')
 * call.wire.body // the parsed JSON body, or null
 */
export async function readCall(req: IncomingMessage, origin: string): Promise<IncomingCall> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  const path = req.url ?? '/'
  const url = new URL(path, origin)
  const wire: WireRequest = { method: req.method ?? 'GET', url: url.href, headers, body: null }
  if (text.length > 0) {
    try {
      wire.body = JSON.parse(text) as JsonValue
    } catch {
      wire.bodyText = text
    }
  }
  return { wire, path, pathname: url.pathname.replace(/\/+$/, '') || '/', headers }
}

/**
 * Sends a whole response with an explicit length, so a keep-alive client can reuse the connection.
 *
 * @example
 * sendBody(res, 404, 'application/json', JSON.stringify({ error: 'nope' }))
 */
export function sendBody(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
  })
  res.end(body)
}

/**
 * Sends a JSON body.
 *
 * @example
 * sendJson(res, 200, { object: 'list', data: [] })
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: JsonValue,
  headers: Record<string, string> = {},
): void {
  sendBody(res, status, 'application/json', JSON.stringify(body), headers)
}

/**
 * Writes and resolves once the bytes are handed to the kernel, so that a connection dropped right
 * after (a cut stream) has really sent what came before the cut.
 *
 * @example
 * await writeFlushed(res, 'data: {}\n\n')
 */
export function writeFlushed(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve()
    res.write(text, () => resolve())
  })
}

/**
 * Waits `ms`, or less when `signal` aborts (the server closes, the client goes away). Never rejects:
 * callers check `signal.aborted` after it.
 *
 * @example
 * await pause(50, signal)
 * if (signal.aborted) return
 */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return
  await sleep(ms, undefined, { signal }).catch(() => undefined)
}

/**
 * A signal that aborts when the server closes or when this exchange's connection goes away, so that
 * delays and streams stop writing to a socket nobody reads.
 *
 * @example
 * const signal = exchangeSignal(res, serverSignal)
 */
export function exchangeSignal(res: ServerResponse, serverSignal: AbortSignal): AbortSignal {
  const gone = new AbortController()
  res.once('close', () => gone.abort())
  return AbortSignal.any([serverSignal, gone.signal])
}
