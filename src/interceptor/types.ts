import type { RequestHandler } from 'msw'
import type { ReplayNetworkOptions } from './replay-network.ts'

/**
 * Which traffic crashlab's MSW handlers record and replay, and what other hosts get during a run
 * (`allowHosts` and `outsideSession`: see `ReplayNetworkOptions`).
 *
 * @example
 * const options: InterceptorOptions = { hosts: ['api.openai.com', 'http://127.0.0.1:8787'], allowHosts: ['db:5432'] }
 */
export interface InterceptorOptions extends ReplayNetworkOptions {
  /**
   * Hosts whose traffic crashlab records/replays. Default: api.openai.com, api.anthropic.com,
   * generativelanguage.googleapis.com. Entries may be host names (any port), host:port, or base URLs
   * (their origin is taken: `https://gw.example.com/v1` means host `gw.example.com`).
   */
  hosts?: readonly string[]
  /**
   * What requests to OTHER hosts get while a Session is active: 'error' (a network error, recorded on
   * the Session as `E_UNHANDLED_HOST` naming the URL and this option, in every mode and on every host)
   * or 'passthrough' (the network; a replay still refuses model calls). Default: the replay rule in a
   * replay Session (loopback and `allowHosts` pass, other hosts and model calls are refused),
   * 'passthrough' otherwise. Outside any Session requests pass untouched unless `outsideSession: 'replay'`.
   */
  otherHosts?: 'error' | 'passthrough'
}

/**
 * The running interceptor: one MSW server per process, shared by every `startInterceptor()` caller.
 *
 * @example
 * const interceptor = startInterceptor({ hosts: [provider.url] })
 * afterAll(() => interceptor.close())
 */
export interface Interceptor {
  /** Releases this caller's hold; the last one to close stops the MSW server. Closing twice is a no-op. */
  close(): Promise<void> | void
  /** The msw handlers the server runs, for users who run their own MSW server. */
  readonly handlers: readonly RequestHandler[]
}
