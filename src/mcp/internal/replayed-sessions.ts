import type { McpMessage } from '../mcp-message.ts'

/**
 * MCP sessions over HTTP that a replay handed out, and the live sessions opened for them.
 *
 * A replayed `initialize` answers with the recorded `Mcp-Session-Id`, which no live server issued: a
 * client connected in `beforeAll` from the file's MCP cassette, whose calls a test then records (or a
 * fork sends live), would send that id to a server that refuses it. So a replayed `initialize` is kept
 * here by the session id it answered with, and the first live request on that id opens a live session
 * with the same `initialize` body (and `notifications/initialized`), whose id the live requests then
 * carry; the client keeps the id it knows.
 *
 * Kept on `globalThis`, as the Session store is: the replayed handshake (the file's MCP Session) and the
 * live call (a test's Session) may go through two copies of crashlab in one process.
 *
 * @example
 * rememberReplayedSession('s-recorded', initializeBody)
 * const liveId = await liveSessionFor('s-recorded', 'http://127.0.0.1:3001/mcp', headers, upstream)
 */
export function rememberReplayedSession(sessionId: string, messages: McpMessage[], body: string): void {
  if (messages.some((m) => m.kind === 'request' && m.method === 'initialize'))
    shared().replayed.set(sessionId, body)
}

/** Whether a replay handed this session id out (`rememberReplayedSession`). */
export function isReplayedSession(sessionId: string | null): sessionId is string {
  return sessionId !== null && shared().replayed.has(sessionId)
}

/** The live session already opened for a replayed one at `url`, if any. */
export function openedLiveSession(sessionId: string, url: string): Promise<string | undefined> | undefined {
  return shared().live.get(`${sessionId} ${url}`)
}

/**
 * The live session for the replayed session `sessionId` at `url`: opened on the first call (the
 * recorded `initialize` sent again through `upstream`, then `notifications/initialized`), the same one
 * after. Undefined when the server gave no session id (a stateless server: the request goes as it is).
 */
export function liveSessionFor(
  sessionId: string,
  url: string,
  headers: Headers,
  upstream: (request: Request) => Promise<Response>,
): Promise<string | undefined> {
  const { replayed, live } = shared()
  const key = `${sessionId} ${url}`
  const opened = live.get(key)
  if (opened) return opened
  const initialize = replayed.get(sessionId) as string
  const opening = handshake(url, initialize, headers, upstream)
  live.set(key, opening)
  opening.catch(() => live.delete(key))
  return opening
}

async function handshake(
  url: string,
  initialize: string,
  headers: Headers,
  upstream: (request: Request) => Promise<Response>,
): Promise<string | undefined> {
  const base: Record<string, string> = {
    'content-type': 'application/json',
    accept: headers.get('accept') ?? 'application/json, text/event-stream',
  }
  const answer = await upstream(new Request(url, { method: 'POST', headers: base, body: initialize }))
  await answer.text()
  const id = answer.headers.get('mcp-session-id')
  if (!answer.ok || id === null) return undefined
  const version = headers.get('mcp-protocol-version')
  const initialized = await upstream(
    new Request(url, {
      method: 'POST',
      headers: { ...base, 'mcp-session-id': id, ...(version && { 'mcp-protocol-version': version }) },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }),
  )
  await initialized.text()
  return id
}

/** A live answer with the replayed session id in place of the live one, so the client keeps its own. */
export function withSessionId(response: Response, sessionId: string): Response {
  if (!response.headers.has('mcp-session-id')) return response
  const headers = new Headers(response.headers)
  headers.set('mcp-session-id', sessionId)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

interface Sessions {
  replayed: Map<string, string>
  live: Map<string, Promise<string | undefined>>
}
const KEY = Symbol.for('crashlab.mcp.replayed-sessions')
function shared(): Sessions {
  const store = globalThis as { [KEY]?: Sessions }
  store[KEY] ??= { replayed: new Map(), live: new Map() }
  return store[KEY]
}
