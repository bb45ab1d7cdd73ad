import type { JsonValue } from '../case/schema/json.ts'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { HttpStep, LlmStep, Step, ToolStep, WireRequest } from '../case/schema/step.ts'
import type { ProviderAdapter } from '../providers/types.ts'
import type { Session } from './session.ts'

/**
 * How a Session treats the calls it sees (the engine's knob; a test's record mode, RecordMode in
 * src/record-modes, picks one for it):
 * - `record`: calls go upstream and each one is captured as a step of the run;
 * - `replay`: calls are answered from the recorded run and never go upstream;
 * - `passthrough`: crashlab stays out: calls go upstream as they are, nothing is captured, and
 *   `halt()` does not stop them.
 *
 * Record mode `off` (and a `live()` test) opens a `record` Session, so its run is still graded: only
 * its cassette is passed over (cassette action `passthrough`). No record mode opens a `passthrough`
 * Session.
 *
 * @example
 * const mode: SessionMode = process.env.CI ? 'replay' : 'record'
 */
export type SessionMode = 'replay' | 'record' | 'passthrough'

/**
 * One exchange as the hooks see it: what was asked, classified, with secrets left out of the headers.
 *
 * @example
 * const hook: SessionHooks['onRequest'] = (ctx) => { if (ctx.kind === 'llm') console.log(ctx.normalized?.model) }
 */
export interface ExchangeContext {
  session: Session
  /** `llm` for a model call of a known API, `http` for any other call on the host. */
  kind: 'llm' | 'http'
  /** The adapter that reads this API; undefined for `http` calls. */
  adapter: ProviderAdapter | undefined
  /** For `http` calls, what the call is (`models.list`, `traces.ingest`, `unknown`). */
  label: string | undefined
  /** The request as crashlab stores it: allow-listed headers only, the API key dropped from the URL. */
  wire: WireRequest
  /** The provider-neutral request of a model call; null for `http` calls. */
  normalized: NormalizedRequest | null
}

/**
 * What `onRequest` may decide instead of letting the request through as it is:
 * - `{ rewrite }` sends this normalized request instead (the adapter writes its wire body); with
 *   `baseUrl`, to that origin instead of the request's (`http://127.0.0.1:8787` sends
 *   `/v1/chat/completions` to `http://127.0.0.1:8787/v1/chat/completions`), recorded as sent there;
 * - `{ respond }` answers with this Response and never calls the provider (nor the recording, in replay);
 * - `{ block }` refuses the call: the caller sees a network error, the step records why.
 *
 * @example
 * const decision: RequestDecision = { block: 'side effects are off during a fork' }
 */
export type RequestDecision =
  | { rewrite: NormalizedRequest; baseUrl?: string }
  | { respond: Response }
  | { block: string }

/**
 * Extension points of the engine: checks, patches and forks plug in here, and the engine knows nothing
 * about them. A hook that throws in `onRequest` fails that call with its error; a hook that throws
 * elsewhere is a capture failure (`E_CAPTURE`) kept on the Session.
 *
 * @example
 * const hooks: SessionHooks = {
 *   onRequest: (ctx) => (ctx.normalized?.model === 'gpt-4o' ? { rewrite: { ...ctx.normalized, model: 'gpt-5-mini' } } : undefined),
 *   onStep: (step) => console.log(step.index, step.type),
 * }
 */
export interface SessionHooks {
  onRequest?: (ctx: ExchangeContext) => RequestDecision | undefined | Promise<RequestDecision | undefined>
  /** Sees the status and headers as soon as they are known, before the body is read. */
  onResponse?: (ctx: ExchangeContext & { status: number; headers: Record<string, string> }) => void
  /** Sees every finished step (llm, http, tool), after it joined the run. */
  onStep?: (step: Step, session: Session) => void
}

/**
 * A fault put in place of one recorded step's answer, once, in a replay (a crash test: src/crash builds
 * it from a `Fault`). The call the step would answer — the first live call that matches it, whatever
 * its position — gets the fault instead, and the step stays unused, so a retry of the same call is
 * served from the recording. The fault's own exchange is a step of the run.
 *
 * @example
 * const inject: FaultInjection = { atStep: 2, call: () => ({ response: new Response('busy', { status: 429 }) }) }
 */
export interface FaultInjection {
  /** The index of the recorded step whose call gets the fault. */
  atStep: number
  /** A model or http call's answer: a `Response` to serve, or the error its `fetch` rejects with. */
  call?: (ctx: ExchangeContext, recorded: LlmStep | HttpStep) => { response: Response } | { reject: Error }
  /** A `tool()` call's outcome: an error it throws, or a result it returns. */
  tool?: (recorded: ToolStep) => { throws: Error } | { result: unknown }
  /**
   * An MCP `tools/call`'s answer (the recorded step is a `tool` step with `mcp`): the MCP result to
   * answer the call with, or the error its `fetch` rejects with.
   */
  mcp?: (recorded: ToolStep) => { result: JsonValue } | { reject: Error }
}

/**
 * A user normalizer: rewrites a model request before it is matched (and hashed), at record and at replay
 * alike, to take out what changes from run to run without changing what is asked (today's date in a
 * system prompt, a generated id). It sees the redacted, matchable request and must not mutate it.
 *
 * @example
 * const stripDate: RequestNormalizer = (req) => ({
 *   ...req,
 *   system: req.system.map((p) => (p.type === 'text' ? { ...p, text: p.text.replace(/\d{4}-\d{2}-\d{2}/g, '<date>') } : p)),
 * })
 */
export type RequestNormalizer = (request: NormalizedRequest) => NormalizedRequest

/**
 * How a Session matches calls beyond the defaults, at record and at replay alike.
 *
 * @example
 * const matching: MatchingOptions = { ignoreParams: ['x_trace_id'], normalize: [stripDate] }
 */
export interface MatchingOptions {
  /**
   * Body fields left out of matching. For a model call, `params.extra` fields (wire names), on top of
   * VOLATILE_PARAMS; for any other (`http`) call, fields at the top level of its JSON body.
   */
  ignoreParams?: readonly string[]
  /** Run in order on every model request before it is hashed; `http` calls have no normalized request. */
  normalize?: readonly RequestNormalizer[]
}

/**
 * Whether MCP tools have side effects, set by hand over what their servers' annotations say: by server
 * name (`serverInfo.name` from `initialize`, as an MCP step's `mcp.server` holds it), for all its tools
 * or tool by tool. The config file's `mcp.sideEffects`.
 *
 * @example
 * const overrides: McpSideEffectOverrides = { 'orders-server': { get_order: false }, 'mail-server': true }
 */
export type McpSideEffectOverrides = Readonly<Record<string, boolean | Readonly<Record<string, boolean>>>>

/**
 * How a Session treats MCP servers: the config file's `mcp` key.
 *
 * @example
 * const mcp: McpOptions = { sideEffects: { 'orders-server': { get_order: false } } }
 */
export interface McpOptions {
  /** Which MCP tools have side effects, over their annotations (see `McpSideEffectOverrides`). */
  sideEffects?: McpSideEffectOverrides
}
