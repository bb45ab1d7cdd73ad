import { guardSockets } from './internal/socket-guard.ts'
import { type ReplayNetworkOptions, replayRule } from './replay-network.ts'

/**
 * Guards sockets for replays without crashlab's MSW server (the plugin's `intercept: false`, a replay
 * with `intercept: false`); `startInterceptor()` does it by itself. A connection opened in a replay
 * Session (or, with `outsideSession: 'replay'`, outside any Session) to a host that is neither loopback
 * nor in `allowHosts` fails with `E_REPLAY_CONNECTION` before anything is sent, whatever opened it
 * (`fetch`, `node:http`, the `undici` package, `net.connect`, `tls.connect`). Call it before any MSW
 * server of your own starts listening, so that what MSW answers never reaches the guard. Returns the
 * function that stops guarding.
 *
 * @example
 * const release = guardReplaySockets({ allowHosts: ['db:5432'], outsideSession: 'replay' })
 * afterAll(release)
 */
export function guardReplaySockets(options: ReplayNetworkOptions = {}): () => void {
  return guardSockets(replayRule(options))
}
