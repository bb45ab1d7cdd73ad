import type { JsonValue } from '../case/schema/json.ts'

/**
 * The shapes a mock-replayed entrypoint sees. Everything it gets back is recorded data, a fresh copy
 * each time: mutating it changes neither the case nor a later replay.
 */

/**
 * What the code would send to the model. Every key given is compared with the recorded `model.request`
 * payload (`provider` and `model` exactly, the rest in `normalized` mode: CRLF and surrounding
 * whitespace in strings, and float rounding, are not differences); keys left out are not compared.
 *
 * @example
 * const request: MockModelRequest = { provider: 'local', model: 'tiny-7b', input: { prompt: 'hello' } }
 */
export interface MockModelRequest {
  provider?: string
  model?: string
  input?: unknown
  parameters?: Record<string, unknown>
  tools?: unknown[]
  /** Any other key of the recorded payload may be compared too. */
  [key: string]: unknown
}

/**
 * A recorded tool result, as data: the tool is never run. A failed call comes back with
 * `status: 'failure'` and its recorded `error`; it is not thrown, the code decides what to do with it.
 *
 * @example
 * const { status, result, error } = ctx.toolResult('get_order', { id: 'A17' })
 */
export interface RecordedToolResult {
  status: 'success' | 'failure'
  result: JsonValue | undefined
  error: JsonValue | undefined
  /** The recorded `call_id`. */
  callId: string | undefined
}

/**
 * The only way a mock-replayed entrypoint reaches "the outside": each call must match the next recorded
 * interaction (model and tool interactions share one order, the order of the case) and returns its
 * recorded output. There is no live fallback. A contract failure (`E_MOCK_MISMATCH`, `E_MOCK_EXTRA`,
 * `E_MOCK_MISSING`) is thrown here and also kept: the replay fails with it even if the code catches it,
 * and every later call fails with it too.
 *
 * @example
 * async function agent(ctx: MockReplayContext) {
 *   const output = ctx.modelResponse({ provider: 'local', model: 'tiny-7b', input: { prompt: 'hello' } })
 *   const order = ctx.toolResult('get_order', { id: 'A17' })
 *   return { output, order: order.result }
 * }
 */
export interface MockReplayContext {
  /** The recorded `output` of the next interaction, which must be a model request matching `request`. */
  modelResponse(request?: MockModelRequest): JsonValue
  /** The recorded result of the next interaction, which must be a call of tool `name` with `args`. */
  toolResult(name: string, args: unknown): RecordedToolResult
  /** How many recorded interactions were served so far. */
  readonly consumed: number
  /** How many recorded interactions are left. */
  readonly remaining: number
}

/**
 * What `runMockReplay` resolves to when the replay kept the contract.
 *
 * @example
 * const { value, consumedModelInteractions } = await runMockReplay('failure.agentcase', agent)
 */
export interface MockReplayResult<T> {
  /** What the entrypoint returned. */
  value: T
  consumedModelInteractions: number
  consumedToolInteractions: number
  /** The replayed case's `case_id` and `execution_id`. */
  caseId: string
  executionId: string
}

/**
 * Options of `runMockReplay`.
 *
 * @example
 * await runMockReplay(c, agent, { allowIncomplete: true, floatTolerance: 1e-6 })
 */
export interface RunMockReplayOptions {
  /** Replay a capture that is not `complete`, or whose answers were captured `partial`. Default false. */
  allowIncomplete?: boolean
  /** The tolerance of normalized number comparison; 1e-9 by default. */
  floatTolerance?: number
  /** Names the case in messages when an object is passed; the path otherwise. */
  source?: string
}
