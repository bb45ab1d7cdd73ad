import type { AgentCase, AgentCaseCompleteness, AgentCaseOutcome } from '../case/agentcase/schema.ts'
import type { Redactor } from '../redact/types.ts'

/**
 * The public shapes of explicit capture. Values the application hands over (`input`, `output`,
 * `arguments`, `result`, …) are `unknown`: they are copied to JSON when the method is called, and what
 * JSON cannot carry is left out and reported (the case is then `degraded`), never a reason to throw.
 */

/**
 * Options of `captureCase`.
 *
 * @example
 * const options: CaptureCaseOptions = { output: 'failures/refund.agentcase', name: 'refund-bot' }
 */
export interface CaptureCaseOptions {
  /** Where `close()` writes the case (redacted, validated, atomically). */
  output: string
  /** The execution's name, in the `execution.start` payload. */
  name?: string
  /** The application entrypoint, as text (`module:function`), in the `execution.start` payload. */
  entrypoint?: string
  /** The execution's input, in the `execution.start` payload. */
  input?: unknown
  /** The primary provider, declared once for `metadata.provider`; each model event names its own. */
  provider?: string
  /** The primary model, declared once for `metadata.model`. */
  model?: string
  /** Free data for `metadata.user_metadata` (redacted on write). */
  metadata?: Record<string, unknown>
  /** The redaction rules applied on write; the defaults plus the process-wide rules when omitted. */
  redactor?: Redactor
  /** The size bound of the written file; the format's 16 MiB by default. */
  maxBytes?: number
  /** Receives capture failures that must not replace the application's error. Default: `process.emitWarning`. */
  onWarning?: (message: string) => void
  /** The clock of event timestamps; `new Date()` by default. Durations always use a monotonic clock. */
  now?: () => Date
}

/**
 * What every capture method accepts: the causal parent (any earlier event of the session; the
 * `execution.start` when omitted) and free extension data for the event.
 *
 * @example
 * session.message({ role: 'user', content: 'hi', parentEventId: requestId })
 */
export interface CaptureEventOptions {
  parentEventId?: string
  extensions?: Record<string, unknown>
}

/** @example session.message({ role: 'user', content: 'Refund my order A17' }) */
export interface CaptureMessage extends CaptureEventOptions {
  role: string
  content: unknown
  name?: string
  messageId?: string
}

/** @example session.modelRequest({ provider: 'local', model: 'tiny-7b', input: { prompt: 'hello' } }) */
export interface CaptureModelRequest extends CaptureEventOptions {
  provider: string
  model: string
  input: unknown
  /** Sampling parameters (`temperature`, …); `{}` when omitted. */
  parameters?: Record<string, unknown>
  /** The tool definitions sent with the request; `[]` when omitted. */
  tools?: unknown[]
}

/**
 * A model's answer. `parentEventId` is required and must be a `model.request` of this session that has
 * no response yet; `provider` and `model` default to the request's.
 *
 * @example session.modelResponse({ parentEventId: requestId, output: { text: 'hi' }, finishReason: 'stop' })
 */
export interface CaptureModelResponse extends CaptureEventOptions {
  parentEventId: string
  output: unknown
  provider?: string
  model?: string
  finishReason?: string
  usage?: Record<string, unknown>
  latencyMs?: number
}

/** @example session.toolCall({ name: 'get_order', arguments: { id: 'A17' }, callId: 'call_1' }) */
export interface CaptureToolCall extends CaptureEventOptions {
  name: string
  arguments: unknown
  /** The provider's call id; `call_<sequence>` when omitted. */
  callId?: string
}

/**
 * A tool's result. `parentEventId` is required and must be a `tool.call` of this session that has no
 * result yet; its name and call id are copied. The status is `failure` when `error` is given.
 *
 * @example session.toolResult({ parentEventId: callId, result: { status: 'delivered' } })
 */
export interface CaptureToolResult extends CaptureEventOptions {
  parentEventId: string
  result?: unknown
  /** An `Error` is recorded as `{ type, message }`; any other value as JSON. */
  error?: unknown
  status?: 'success' | 'failure'
  latencyMs?: number
}

/** @example session.retry({ attempt: 2, reason: 'HTTP 429', delayMs: 500, parentEventId: requestId }) */
export interface CaptureRetry extends CaptureEventOptions {
  attempt: number
  reason?: string
  delayMs?: number
  target?: string
}

/** @example session.exception(err, { handled: true, parentEventId: callId }) */
export interface CaptureExceptionOptions extends CaptureEventOptions {
  /** Whether the application caught it; `true` by default (`run` and `close({ error })` record `false`). */
  handled?: boolean
}

/** @example session.logicalFailure('refund above the limit', { details: { amount: 490 } }) */
export interface CaptureLogicalFailureOptions extends CaptureEventOptions {
  details?: unknown
}

/**
 * How `close` ends the execution. Without `outcome`: `failure` after an unhandled exception or a
 * logical failure, else `success`.
 *
 * @example session.close({ outcome: 'timeout', reason: 'deadline of 30 s passed' })
 */
export interface CaptureCloseOptions {
  outcome?: AgentCaseOutcome
  /** The `execution.end` reason; the first logical failure's reason by default. */
  reason?: string
  /** The execution's result, in the `execution.end` payload. */
  output?: unknown
  /** `complete` by default; `degraded` when a value had to be left out. */
  completeness?: AgentCaseCompleteness
  /**
   * The application's error. It is recorded as an unhandled exception, and a failure to write the case
   * is then reported through `onWarning` instead of thrown, so that the caller can rethrow its own error.
   */
  error?: unknown
}

/**
 * A capture session: each method appends one event (sequence, UUID, parent, timestamp) and returns its
 * `event_id`; `close` finalizes, validates and writes the case. Misuse (an unknown parent, a second
 * response to one request, a call after close) throws `E_CAPTURE_USAGE`.
 *
 * @example
 * const session = captureCase({ output: 'failure.agentcase', name: 'example-agent' })
 * const req = session.modelRequest({ provider: 'local', model: 'tiny', input: { prompt: 'hello' } })
 * session.modelResponse({ parentEventId: req, output: { text: 'hi' } })
 * session.close()
 */
export interface ExplicitCapture {
  /** The case's `case_id`. */
  readonly caseId: string
  /** The case's `execution_id`. */
  readonly executionId: string
  /** The `event_id` of `execution.start`, the default parent. */
  readonly startEventId: string
  /** True once `close` was called. */
  readonly closed: boolean
  message(message: CaptureMessage): string
  modelRequest(request: CaptureModelRequest): string
  modelResponse(response: CaptureModelResponse): string
  toolCall(call: CaptureToolCall): string
  toolResult(result: CaptureToolResult): string
  retry(retry: CaptureRetry): string
  exception(error: unknown, options?: CaptureExceptionOptions): string
  /** A failure that raised nothing (a wrong answer, a broken rule): a `custom` event, outcome `failure`. */
  logicalFailure(reason: string, options?: CaptureLogicalFailureOptions): string
  /** Finalizes and writes the case; returns it as written. Calling it again retries a failed write. */
  close(result?: Omit<CaptureCloseOptions, 'error'>): AgentCase
  /** With the application's error: never throws; returns undefined when the case could not be written. */
  close(result: CaptureCloseOptions): AgentCase | undefined
  /**
   * Runs `fn` with the session and closes it. When `fn` throws, the error is recorded (unhandled), the
   * case is written, and the same error is rethrown; a capture failure then only reaches `onWarning`.
   */
  run<T>(fn: (session: ExplicitCapture) => T | PromiseLike<T>): Promise<T>
}
