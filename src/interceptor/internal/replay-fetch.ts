import { currentSession } from '../../engine/context.ts'
import type { Session } from '../../engine/session.ts'
import { rejectionOf } from './rejection.ts'

/**
 * Answers a request made inside a replaying Session from the cassette, or undefined to leave it to
 * msw (a request that is not a model call: the guard's).
 */
export type ReplayAnswer = (session: Session, request: Request, url: URL) => Promise<Response | undefined>

/**
 * Puts a replay fast path in front of the global `fetch` that msw patched: inside a replaying Session,
 * a model call is answered from the cassette by the same `answer` msw's handler gives, handed to the
 * caller as a `Response` without going through Node's HTTP client. msw 3 intercepts `fetch` at the
 * socket: every mocked call runs undici's client, its HTTP parser and a socket, and the first one in a
 * process loads and compiles them (about 100 ms, most of what a replayed test file costs beyond MSW's
 * own start). Everything else — a recording, a passthrough, a request that is not a model call, a
 * request outside any Session — goes to msw's `fetch` untouched. What the caller sees is what fetch
 * gives: a recorded network error rejects with `TypeError: fetch failed`, an aborted signal rejects
 * with its reason (and errors a body being read), `response.url` is the request's.
 *
 * Returns the function that takes the fast path out again (it leaves a `fetch` patched on top of it
 * alone).
 *
 * @example
 * server.listen()
 * const uninstall = installReplayFetch((session, request, url) => modelCallAnswer(intercepted, session, request, url))
 * // … later, before server.close():
 * uninstall()
 */
export function installReplayFetch(answer: ReplayAnswer): () => void {
  const underlying = globalThis.fetch
  const replayFetch: typeof fetch = async (input, init) => {
    const session = currentSession()
    if (session?.mode !== 'replay') return underlying(input, init)
    const request = new Request(input, init)
    const signal = request.signal
    signal.throwIfAborted()
    const response = await answer(session, request, new URL(request.url))
    if (response === undefined) return underlying(request)
    signal.throwIfAborted()
    if (response.type === 'error') throw rejectionOf(response)
    return delivered(response, request.url, signal)
  }
  globalThis.fetch = replayFetch
  return () => {
    if (globalThis.fetch === replayFetch) globalThis.fetch = underlying
  }
}

/** The response as fetch hands it over: its URL set, and its body errored when the signal aborts. */
function delivered(response: Response, url: string, signal: AbortSignal): Response {
  const body = response.body
  const out =
    body === null
      ? response
      : new Response(abortable(body, signal), {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        })
  Object.defineProperty(out, 'url', { value: url, configurable: true })
  return out
}

function abortable(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let onAbort: (() => void) | undefined
  return new ReadableStream<Uint8Array>({
    start(controller) {
      onAbort = () => {
        controller.error(signal.reason)
        void reader.cancel(signal.reason).catch(() => {})
      }
      signal.addEventListener('abort', onAbort, { once: true })
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (signal.aborted) return
        if (done) {
          signal.removeEventListener('abort', onAbort as () => void)
          controller.close()
        } else controller.enqueue(value)
      } catch (err) {
        signal.removeEventListener('abort', onAbort as () => void)
        controller.error(err)
      }
    },
    cancel(reason) {
      signal.removeEventListener('abort', onAbort as () => void)
      return reader.cancel(reason)
    },
  })
}
