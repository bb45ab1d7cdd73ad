/**
 * msw and its interceptors, loaded when the interceptor starts (or a handler is made) rather than when
 * crashlab is imported: the Vitest config process imports `crashlab/vitest` for the plugin alone, and
 * msw's 40 modules cost it about 150 ms (docs/architecture.md, "Start-up"). Loaded through
 * `requireModule`, so crashlab's msw is the instance the user's own `import 'msw'` gives.
 */
import type * as FetchModule from '@mswjs/interceptors/fetch'
import type * as HttpModule from '@mswjs/interceptors/http'
import type * as WebSocketModule from '@mswjs/interceptors/WebSocket'
import type * as XMLHttpRequestModule from '@mswjs/interceptors/XMLHttpRequest'
import type * as MswModule from 'msw'
import type * as MswExperimentalModule from 'msw/experimental'
import type * as MswNodeModule from 'msw/node'
import { requireModule } from '../../require-module.ts'

/**
 * `msw`'s exports.
 *
 * @example
 * const handler = msw().http.all('*', () => msw().passthrough())
 */
export const msw = (): typeof MswModule => requireModule('msw')

/**
 * `msw/node`'s exports.
 *
 * @example
 * const shared = mswNode().defaultNetworkOptions.sources[0]
 */
export const mswNode = (): typeof MswNodeModule => requireModule('msw/node')

/**
 * `msw/experimental`'s exports.
 *
 * @example
 * const network = mswExperimental().defineNetwork({ sources: [], handlers: [] })
 */
export const mswExperimental = (): typeof MswExperimentalModule => requireModule('msw/experimental')

/**
 * The four interceptors of `@mswjs/interceptors` that crashlab's network reads.
 *
 * @example
 * const { FetchInterceptor } = mswInterceptors()
 */
export function mswInterceptors(): typeof FetchModule &
  typeof HttpModule &
  typeof WebSocketModule &
  typeof XMLHttpRequestModule {
  return {
    ...requireModule<typeof FetchModule>('@mswjs/interceptors/fetch'),
    ...requireModule<typeof HttpModule>('@mswjs/interceptors/http'),
    ...requireModule<typeof WebSocketModule>('@mswjs/interceptors/WebSocket'),
    ...requireModule<typeof XMLHttpRequestModule>('@mswjs/interceptors/XMLHttpRequest'),
  }
}

/**
 * Loads the modules above with `import()`, concurrently: a Vitest worker's setup does this before it
 * starts the interceptor, which then finds them loaded. `require()` reads a module graph one file at a
 * time, which costs a process that is sure to need msw about 10 ms more than `import()`.
 *
 * @example
 * await preloadMsw()
 * const interceptor = startInterceptor()
 */
export async function preloadMsw(): Promise<void> {
  await Promise.all([
    import('msw'),
    import('msw/node'),
    import('msw/experimental'),
    import('@mswjs/interceptors/fetch'),
    import('@mswjs/interceptors/http'),
    import('@mswjs/interceptors/WebSocket'),
    import('@mswjs/interceptors/XMLHttpRequest'),
  ])
}
