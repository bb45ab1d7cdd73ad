import type { JsonValue } from '../case/schema/json.ts'
import type { FinishReason, NormalizedRequest, NormalizedResponse, Usage } from '../case/schema/normalized.ts'
import type { ProviderId } from '../providers/types.ts'
import type { Rng } from './create-rng.ts'

/**
 * A failure served on purpose, as a client meets it in production.
 *
 * @example
 * const turns: ScriptedTurn[] = [
 *   { fault: { type: 'rate_limit', retryAfter: 2 } },   // 429 + retry-after: 2
 *   { fault: { type: 'server_error', status: 502 } },   // the gateway's HTML page
 *   { text: 'A long answer, cut short', fault: { type: 'cut_stream', afterEvents: 3 } },
 *   { text: 'Finally, an answer.' },
 * ]
 */
export type Fault =
  /** 429 with a `retry-after` header (seconds, default 1) and the API's own error body. */
  | { type: 'rate_limit'; retryAfter?: number }
  /** 500: the API's JSON error; 502 and 503: the HTML page a gateway sends. Default 500. */
  | { type: 'server_error'; status?: 500 | 502 | 503 }
  /** Accepts the request and never answers; with `afterMs`, drops the connection after that long. */
  | { type: 'timeout'; afterMs?: number }
  /** Resets the connection (TCP RST) before any response: the client sees ECONNRESET. */
  | { type: 'reset' }
  /** Sends the first `afterEvents` events of the stream, then drops the connection. */
  | { type: 'cut_stream'; afterEvents: number }
  /** 200, `content-type: application/json`, and a body cut in the middle of the JSON. */
  | { type: 'malformed_json' }

/**
 * One tool call of a scripted reply. Without `id`, a deterministic one is made from the call number
 * (`call_scripted_<call>_<n>`, Anthropic `toolu_scripted_<call>_<n>`).
 *
 * @example
 * const call: ScriptedToolCall = { name: 'issue_refund', args: { order_id: 'A17', amount: 49 } }
 */
export interface ScriptedToolCall {
  name: string
  args: JsonValue
  id?: string
}

/**
 * What the model says in one turn, and how fast. Every field is optional: `{}` is an empty answer.
 *
 * @example
 * const reply: ScriptedReply = {
 *   text: 'Let me look that up.',
 *   toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }],
 *   chunkSize: 4,       // stream the text four characters at a time
 *   chunkDelayMs: 20,   // 20 ms between stream events
 * }
 */
export interface ScriptedReply {
  text?: string
  toolCalls?: ScriptedToolCall[]
  reasoning?: string
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: FinishReason
  /** Default: estimated from text lengths (about four characters a token), deterministic. */
  usage?: Partial<Usage>
  /** Default: the model the request asked for. */
  model?: string
  /** Milliseconds before the response starts (overrides the `latencyMs` option). */
  delayMs?: number
  /** Milliseconds between stream events (overrides the `chunkDelayMs` option). */
  chunkDelayMs?: number
  /** Splits streamed text into deltas of this many characters. */
  chunkSize?: number
}

/**
 * A fault served instead of a reply. The reply fields still apply where they make sense: `delayMs`
 * before the fault, and the content of a `cut_stream` (what streams before the cut).
 *
 * @example
 * const turn: ScriptedFaultTurn = { fault: { type: 'timeout' } }
 */
export interface ScriptedFaultTurn extends ScriptedReply {
  fault: Fault
}

/**
 * One answer of the scripted provider: a reply, or a fault.
 *
 * @example
 * const turns: ScriptedTurn[] = [{ toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] }, { text: 'Done.' }]
 */
export type ScriptedTurn = ScriptedReply | ScriptedFaultTurn

/**
 * What a policy knows about the request it answers, besides the normalized request itself.
 *
 * @example
 * const policy: ScriptPolicy = (_request, ctx) => ({ text: `answer ${ctx.index} from ${ctx.api}` })
 */
export interface PolicyContext {
  /** The provider's seeded generator: draw from it, never from Math.random, to stay reproducible. */
  rng: Rng
  /** The 0-based number of this model call among all model calls the provider received. */
  index: number
  /** Which API was called. */
  api: ProviderId
  /** The model the request asked for. */
  model: string
  /** True when the client asked for a streamed response. */
  stream: boolean
  /** Every request received before this one. */
  requests: readonly ReceivedRequest[]
}

/**
 * Computes each answer from the request: the way to script an agent whose behaviour depends on what
 * it is asked (tools offered, a rule in the system prompt, the last tool result).
 *
 * @example
 * const policy: ScriptPolicy = (request, { rng }) =>
 *   request.tools.length > 0 && rng.chance(0.8) ? { toolCalls: [{ name: request.tools[0]!.name, args: {} }] } : { text: 'ok' }
 */
export type ScriptPolicy = (
  request: NormalizedRequest,
  ctx: PolicyContext,
) => ScriptedTurn | Promise<ScriptedTurn>

/**
 * What the provider did with a request.
 *
 * @example
 * if (answer?.kind === 'reply') answer.response.toolCalls
 */
export type ScriptedAnswer =
  /** A reply was served (plain or streamed) from `turn`; `response` is what the client should read. */
  | { kind: 'reply'; status: 200; turn: ScriptedTurn; response: NormalizedResponse }
  /** A fault was served; `status` is null for faults that send no status (timeout, reset). */
  | { kind: 'fault'; status: number | null; turn: ScriptedFaultTurn; fault: Fault }
  /** The script could not answer: no turn left, a policy that threw, or an invalid turn or request. */
  | { kind: 'error'; status: number; code: string; message: string }
  /** A call that is not a model call: the models list, a trace upload, an unknown path (404). */
  | { kind: 'http'; status: number }

/**
 * One request the provider received, for assertions.
 *
 * @example
 * expect(provider.requests.map((r) => r.api)).toEqual(['openai-chat', 'openai-chat'])
 */
export interface ReceivedRequest {
  /** The 0-based model-call number (the policy's `ctx.index`); null for calls that are not model calls. */
  index: number | null
  method: string
  /** The path with its query string, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>
  /** The parsed JSON body; null when there was none or it was not JSON. */
  body: JsonValue | null
  /** The API called; null for calls that are not model calls. */
  api: ProviderId | null
  /** The request as the adapter normalized it; null for calls that are not model calls. */
  normalized: NormalizedRequest | null
  stream: boolean
  /** Null while the answer is being decided (an async policy still running); set before `delayMs` starts. */
  answer: ScriptedAnswer | null
}

/**
 * How to start a scripted provider: exactly one of `turns` or `policy`, and optional timing defaults.
 *
 * @example
 * const options: ScriptedProviderOptions = { turns: [{ text: 'hi' }], latencyMs: 5, chunkDelayMs: 2 }
 */
export interface ScriptedProviderOptions {
  /** Answers in order, one per model call, across all four APIs. */
  turns?: ScriptedTurn[]
  /** Computes each answer from the request. */
  policy?: ScriptPolicy
  /** Seed of `ctx.rng`. Default 0. */
  seed?: number | string
  /** Milliseconds before each response starts, unless a turn says `delayMs`. Default 0. */
  latencyMs?: number
  /** Milliseconds between stream events, unless a turn says `chunkDelayMs`. Default 0. */
  chunkDelayMs?: number
  /** The model named in the models list and in answers to requests that name none. Default `scripted-model`. */
  model?: string
  /** Default `127.0.0.1`. */
  host?: string
  /** Default 0: a free port. */
  port?: number
}

/**
 * A running scripted provider.
 *
 * @example
 * const provider = await startScriptedProvider({ turns: [{ text: 'hi' }] })
 * const client = new OpenAI({ baseURL: `${provider.url}/v1`, apiKey: 'test' })
 * await provider.close()
 */
export interface ScriptedProvider {
  /** The origin, `http://127.0.0.1:PORT`, with no path: OpenAI clients need `${url}/v1`. */
  readonly url: string
  readonly port: number
  /** Every request received, in arrival order. */
  readonly requests: readonly ReceivedRequest[]
  /** Stops the server and drops every open connection; safe to call more than once. */
  close(): Promise<void>
}
