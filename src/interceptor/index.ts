/**
 * The MSW interceptor: the zero-change default path. crashlab's handlers route every request to a model
 * host through the current Session (record or replay), in crashlab's own MSW server or in the user's;
 * a replay's other traffic follows one rule (`replayRule`), at the HTTP level and at the socket.
 */
export { crashlabHandlers, isCrashlabHandler } from './crashlab-handlers.ts'
export { guardReplaySockets } from './guard-replay-sockets.ts'
export { DEFAULT_HOSTS } from './host-matcher.ts'
export { REMOTE_ADDRESSES_ENV } from './internal/loopback.ts'
export { preloadMsw } from './internal/msw-modules.ts'
export {
  type LedgerMark,
  ledgerMark,
  ledgerSince,
  type NetworkLedger,
  networkLedger,
} from './network-ledger.ts'
export {
  type ReplayNetworkOptions,
  type ReplayRule,
  type ReplayVerdict,
  replayRule,
} from './replay-network.ts'
export { startInterceptor } from './start-interceptor.ts'
export type { Interceptor, InterceptorOptions } from './types.ts'
