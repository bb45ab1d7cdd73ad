import type { RequestHandler } from 'msw'
import { mswExperimental, mswInterceptors } from './msw-modules.ts'

/** What crashlab's interceptor needs of msw's network: start and stop. */
export interface CrashlabNetwork {
  listen(): void
  close(): void
}

/**
 * crashlab's msw network: `setupServer`'s, except that HTTP over sockets is read by msw's
 * `HttpRequestInterceptor` instead of its `ClientRequestInterceptor`. Both parse the requests written
 * to a socket; the second keeps only those `node:http` made, the first keeps every one, so a client
 * that brings its own HTTP stack (the `undici` package's own `fetch()` and `request()`) is recorded and
 * replayed like `fetch` and `node:http`. The global `fetch` is still read by the `FetchInterceptor`, once.
 *
 * @example
 * const network = crashlabNetwork(crashlabHandlers({ hosts: ['api.openai.com'] }))
 * network.listen()
 */
export function crashlabNetwork(handlers: readonly RequestHandler[]): CrashlabNetwork {
  const { defineNetwork, InterceptorSource } = mswExperimental()
  const { FetchInterceptor, HttpRequestInterceptor, WebSocketInterceptor, XMLHttpRequestInterceptor } =
    mswInterceptors()
  const network = defineNetwork({
    sources: [
      new InterceptorSource({
        interceptors: [
          new HttpRequestInterceptor(),
          new XMLHttpRequestInterceptor(),
          new FetchInterceptor(),
          new WebSocketInterceptor(),
        ],
      }),
    ],
    handlers: [...handlers],
    // Requests crashlab's handlers leave alone go to the network quietly: they are the agent's business.
    onUnhandledFrame: 'bypass',
    context: { quiet: true },
  })
  return {
    listen: () => void network.enable(),
    close: () => void network.disable(),
  }
}
