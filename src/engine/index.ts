/**
 * The engine: a Session per agent run (AsyncLocalStorage), the exchange core that records and replays
 * model calls, `wrap(client)` for SDK clients, and `tool()` for the agent's own tools.
 */
export { bind, currentSession, runInSession } from './context.ts'
export { type DivergenceDetails, DivergenceError } from './divergence-error.ts'
export { handleExchange, type Upstream } from './handle-exchange.ts'
export { diffRequests, formatDifference, type RequestDifference } from './internal/request-diff.ts'
export { type NewStep, Session, type SessionOptions } from './session.ts'
export { isSessionFetch, type SessionFetch, sessionFetch } from './session-fetch.ts'
export { type ToolOptions, tool } from './tool.ts'
export type {
  ExchangeContext,
  MatchingOptions,
  McpOptions,
  McpSideEffectOverrides,
  RequestDecision,
  RequestNormalizer,
  SessionHooks,
  SessionMode,
} from './types.ts'
export { wrap } from './wrap.ts'
