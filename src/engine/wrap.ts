import { isSessionFetch, sessionFetch } from './session-fetch.ts'

/** The OpenAI and Anthropic clients keep the fetch they call on the instance, as `fetch`. */
interface FetchOnInstance {
  fetch: typeof fetch
}

/** @google/genai keeps its options in an internal ApiClient; `httpOptions.fetch` is what it calls. */
interface GenAiLike {
  apiClient: { clientOptions: { httpOptions?: { fetch?: typeof fetch } } }
}

/**
 * Gives an SDK client a fetch bound to the current Session, so that every method of it (plain calls,
 * streams, `.stream()` helpers, `.withResponse()`, retries) is recorded and replayed. It is the fast
 * path: no interception layer, and a call outside any Session goes straight to the client's own fetch.
 * Returns the same client, wrapping it again is a no-op.
 *
 * Seams: `openai` (v6, v7) and `@anthropic-ai/sdk` call `this.fetch` on the client for every request
 * (clients derived with `withOptions()` inherit it); `@google/genai` (v3) calls
 * `apiClient.clientOptions.httpOptions.fetch`, the fetch of its public `httpOptions.fetch` option, for
 * `models.*`, `chats.*` and the clients it builds later. (With a custom fetch, genai does not install
 * its own undici dispatcher without timeouts: the default fetch's timeouts apply.)
 *
 * @example
 * const openai = wrap(new OpenAI())
 * const anthropic = wrap(new Anthropic())
 * const genai = wrap(new GoogleGenAI({ apiKey }))
 */
export function wrap<T extends object>(client: T): T {
  if (hasInstanceFetch(client)) {
    if (!isSessionFetch(client.fetch)) client.fetch = sessionFetch(client.fetch)
    return client
  }
  if (isGenAi(client)) {
    const options = client.apiClient.clientOptions
    options.httpOptions ??= {}
    const current = options.httpOptions.fetch ?? globalThis.fetch
    if (!isSessionFetch(current)) options.httpOptions.fetch = sessionFetch(current)
    return client
  }
  throw new TypeError(
    '[crashlab] wrap() knows OpenAI, Anthropic and GoogleGenAI clients; this one has neither a `fetch` nor ' +
      'an `apiClient`. Pass `fetch: sessionFetch()` in its options if it takes one, or intercept with the Vitest plugin.',
  )
}

function hasInstanceFetch(client: object): client is FetchOnInstance {
  return typeof (client as Partial<FetchOnInstance>).fetch === 'function'
}

function isGenAi(client: object): client is GenAiLike {
  const api = (client as Partial<GenAiLike>).apiClient
  return typeof api === 'object' && api !== null && typeof api.clientOptions === 'object'
}
