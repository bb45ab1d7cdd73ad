import { startInterceptor } from '../interceptor/start-interceptor.ts'
import type { InterceptorOptions } from '../interceptor/types.ts'

/**
 * The handle of `installInterceptor()`.
 *
 * @example
 * const interceptor: InstalledInterceptor = installInterceptor()
 * process.on('SIGTERM', () => interceptor.close())
 */
export interface InstalledInterceptor {
  /** Stops intercepting (when no other holder remains); closing twice is a no-op. */
  close(): Promise<void>
}

/**
 * Opt-in capture for code whose model clients cannot be `wrap`ped (a framework that builds its own
 * client, a library deep in the stack): installs crashlab's MSW interceptor (`@mswjs/interceptors`
 * under `fetch` and `node:http`) for the whole process. crashlab patches nothing by default; call this
 * once, at start-up, before the clients are created (a client made earlier keeps the fetch it found).
 *
 * What it changes for the app: nothing. Outside a capture (`record`, `startCapture`), every request
 * passes through untouched; inside one, requests to the model hosts go to the provider as they would and
 * are recorded on the way (the response is teed, never held back), and requests to other hosts pass
 * through. It costs ~2 ms per intercepted call against ~0.15 ms for `wrap(client)` (bench/README.md), so
 * prefer `wrap` where it applies. It is `startInterceptor` with the same options and the same rules:
 * one per process, and `E_INTERCEPTOR_CONFLICT` beside another MSW server (add `crashlabHandlers()` to
 * that one instead).
 *
 * @example
 * import { installInterceptor, record } from 'crashlab'
 *
 * installInterceptor({ hosts: ['api.openai.com', 'https://llm-gateway.internal'] })
 * const { run } = await record('triage', (ticket) => someFrameworkAgent.invoke(ticket), { input: ticket })
 */
export function installInterceptor(options: InterceptorOptions = {}): InstalledInterceptor {
  const interceptor = startInterceptor(options)
  return {
    async close() {
      await interceptor.close()
    },
  }
}
