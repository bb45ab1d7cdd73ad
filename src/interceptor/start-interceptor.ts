import type { RequestHandler } from 'msw'
import { CrashlabError } from '../errors.ts'
import { crashlabHandlers, modelCallAnswer } from './crashlab-handlers.ts'
import { hostMatcher, hostsKey } from './host-matcher.ts'
import { type CrashlabNetwork, crashlabNetwork } from './internal/crashlab-network.ts'
import { installReplayFetch } from './internal/replay-fetch.ts'
import { assertNoOtherServer, guardAgainstOtherServers } from './internal/server-guard.ts'
import { guardSockets } from './internal/socket-guard.ts'
import { replayRule } from './replay-network.ts'
import type { Interceptor, InterceptorOptions } from './types.ts'

/** The one running server of this process and how many callers hold it. */
interface Running {
  /** The copy of this module that started it: its handlers read that copy's Session store. */
  owner: symbol
  server: CrashlabNetwork
  handlers: readonly RequestHandler[]
  key: string
  users: number
  unguard: () => void
  unguardSockets: () => void
  uninstallReplayFetch: () => void
}

// On globalThis rather than in module scope: a runner that evaluates this module twice in one process
// (Vitest without isolation) gets a second copy of the engine, with its own Session store. Handing that
// copy the running server would be silently wrong (its handlers read the first copy's Sessions, so a
// replay would go to the network); finding it here makes it a loud conflict instead.
const STATE = Symbol.for('crashlab.interceptor')
const THIS_COPY = Symbol('crashlab.interceptor.owner')
const holder = globalThis as typeof globalThis & { [STATE]?: Running }

/**
 * Starts crashlab's MSW server: every request to an intercepted host made inside a Session is recorded
 * or replayed, with no change to the agent's code (the zero-change default path; `wrap(client)` is the
 * fast one). Outside any Session every request passes through untouched, unless `outsideSession:
 * 'replay'`. It also guards sockets for replays (`guardReplaySockets`): a connection the HTTP
 * interception did not see (an early client, the `undici` package, a raw socket) follows the same rule.
 *
 * One server per process: a second call returns a handle on the same running server (with the same
 * options, else it throws `E_INTERCEPTOR_CONFLICT`), and the server stops when the last handle is
 * closed. It also throws `E_INTERCEPTOR_CONFLICT` when another MSW server already listens, and makes a
 * later `setupServer().listen()` throw it, since msw 3 cannot run two: add `crashlabHandlers()` to your
 * own server instead. Start it before SDK clients are created: a client made earlier keeps the fetch it
 * found and escapes interception (`wrap(client)` fixes such a client).
 *
 * @example
 * const interceptor = startInterceptor({ hosts: ['api.openai.com', 'http://127.0.0.1:8787'] })
 * const session = new Session({ mode: 'record', name: 'refund-bot' })
 * const output = await runInSession(session, () => refundBot('Refund A17'))
 * writeCassette(path, await session.finish({ output }))
 * await interceptor.close()
 */
export function startInterceptor(options: InterceptorOptions = {}): Interceptor {
  const key = [
    hostsKey(options.hosts),
    options.otherHosts ?? 'by-mode',
    `allow:${options.allowHosts?.length ? hostsKey(options.allowHosts) : ''}`,
    `outside:${options.outsideSession ?? 'passthrough'}`,
  ].join('|')
  let running = holder[STATE]
  if (running && running.owner !== THIS_COPY) {
    throw new CrashlabError(
      'E_INTERCEPTOR_CONFLICT',
      'startInterceptor() found an interceptor started by another copy of crashlab in this process (a ' +
        "module evaluated twice, or two installed versions); its handlers read the other copy's Sessions. " +
        'Close that one first (the Vitest plugin closes it after each test file).',
    )
  }
  if (running && running.key !== key) {
    throw new CrashlabError(
      'E_INTERCEPTOR_CONFLICT',
      `startInterceptor() was called with other options (${key}) than the interceptor already running ` +
        `in this process (${running.key}). Start it once, with every host, or close the running one first.`,
    )
  }
  if (!running) {
    assertNoOtherServer()
    const handlers = crashlabHandlers(options)
    // Before listen(): msw 3 patches the same socket method for `node:http`, and its patch must sit on top
    // of the guard's, so that what msw answers itself never reaches the guard and what it lets through does.
    const unguardSockets = guardSockets(replayRule(options))
    const server = crashlabNetwork(handlers)
    server.listen()
    // A replayed model call made with the global fetch is answered before msw's socket-level fetch: the
    // same answer, without Node's HTTP client (docs/interceptor.md, "The replay fast path").
    const intercepted = hostMatcher(options.hosts)
    const uninstallReplayFetch = installReplayFetch((session, request, url) =>
      modelCallAnswer(intercepted, session, request, url),
    )
    running = {
      owner: THIS_COPY,
      server,
      handlers,
      key,
      users: 0,
      unguard: guardAgainstOtherServers(),
      unguardSockets,
      uninstallReplayFetch,
    }
    holder[STATE] = running
  }
  running.users++
  const held = running
  let closed = false
  return {
    handlers: held.handlers,
    close() {
      if (closed) return
      closed = true
      held.users--
      if (held.users > 0 || holder[STATE] !== held) return
      held.unguard()
      held.uninstallReplayFetch()
      held.server.close()
      held.unguardSockets()
      delete holder[STATE]
    },
  }
}
