import type {
  CaptureExceptionOptions,
  CaptureLogicalFailureOptions,
  CaptureMessage,
  CaptureModelRequest,
  CaptureModelResponse,
  CaptureRetry,
  CaptureToolCall,
  CaptureToolResult,
} from '../types.ts'
import { type CaptureLog, usage } from './capture-log.ts'
import { describeError, toolError } from './describe-error.ts'

/**
 * The event half of a capture session: one method per event type, each checking what the payload
 * contracts of AgentCase 0.1 require (so `close` never fails on the application's bookkeeping) and
 * appending one event. Parents: responses and results name theirs; everything else defaults to the
 * `execution.start`.
 */

/**
 * The `kind` of the `custom` event `logicalFailure` appends.
 *
 * @example
 * c.events.filter((e) => e.event_type === 'custom' && e.payload.kind === LOGICAL_FAILURE_KIND)
 */
export const LOGICAL_FAILURE_KIND = 'crashlab.logical_failure'

export abstract class EventMethods {
  protected readonly log: CaptureLog
  /** An unhandled exception or a logical failure was recorded: the default outcome is `failure`. */
  protected failed = false
  protected failureReason: string | undefined
  /** Errors already recorded, so that the error `run` sees escape is not recorded twice. */
  protected readonly recordedErrors = new Set<unknown>()
  abstract readonly startEventId: string

  constructor(log: CaptureLog) {
    this.log = log
  }

  /** Throws E_CAPTURE_USAGE once the session is closed. */
  protected abstract ensureOpen(method: string): void

  message(m: CaptureMessage): string {
    this.ensureOpen('message')
    text(m?.role, 'message', 'role')
    return this.log.add('message', {
      parent: this.parentOf(m, 'message'),
      payload: { role: m.role, content: m.content ?? null, name: m.name, message_id: m.messageId },
      extensions: m.extensions,
    })
  }

  modelRequest(r: CaptureModelRequest): string {
    this.ensureOpen('modelRequest')
    text(r?.provider, 'modelRequest', 'provider')
    text(r.model, 'modelRequest', 'model')
    if (r.tools !== undefined && !Array.isArray(r.tools))
      throw usage('modelRequest: "tools" must be an array')
    return this.log.add('model.request', {
      parent: this.parentOf(r, 'modelRequest'),
      payload: {
        provider: r.provider,
        model: r.model,
        input: r.input ?? null,
        parameters: r.parameters ?? {},
        tools: r.tools ?? [],
      },
      extensions: r.extensions,
    })
  }

  modelResponse(r: CaptureModelResponse): string {
    this.ensureOpen('modelResponse')
    const request = this.log.parent(r?.parentEventId, 'modelResponse', ['model.request'])
    const provider = r.provider ?? request.payload.provider
    const model = r.model ?? request.payload.model
    text(provider, 'modelResponse', 'provider')
    text(model, 'modelResponse', 'model')
    nonNegative(r.latencyMs, 'modelResponse', 'latencyMs')
    this.log.answer(request, 'model.response')
    return this.log.add('model.response', {
      parent: request.event_id,
      payload: {
        provider,
        model,
        output: r.output ?? null,
        finish_reason: r.finishReason,
        usage: r.usage,
        latency_ms: r.latencyMs,
      },
      extensions: r.extensions,
    })
  }

  toolCall(c: CaptureToolCall): string {
    this.ensureOpen('toolCall')
    text(c?.name, 'toolCall', 'name')
    if (c.callId !== undefined) text(c.callId, 'toolCall', 'callId')
    return this.log.add('tool.call', {
      parent: this.parentOf(c, 'toolCall'),
      payload: {
        name: c.name,
        call_id: c.callId ?? `call_${this.log.events.length}`,
        arguments: c.arguments ?? {},
      },
      extensions: c.extensions,
    })
  }

  toolResult(r: CaptureToolResult): string {
    this.ensureOpen('toolResult')
    const call = this.log.parent(r?.parentEventId, 'toolResult', ['tool.call'])
    const status = r.status ?? (r.error === undefined ? 'success' : 'failure')
    if (status !== 'success' && status !== 'failure') {
      throw usage(`toolResult: status must be "success" or "failure", got ${JSON.stringify(status)}`)
    }
    if (status === 'failure' && r.error === undefined) {
      throw usage('toolResult: a failed result needs "error" (what the tool reported)')
    }
    nonNegative(r.latencyMs, 'toolResult', 'latencyMs')
    this.log.answer(call, 'tool.result')
    return this.log.add('tool.result', {
      parent: call.event_id,
      payload: {
        name: call.payload.name,
        call_id: call.payload.call_id,
        status,
        result: r.result,
        error: status === 'failure' ? (toolError(r.error) ?? null) : undefined,
        latency_ms: r.latencyMs,
      },
      extensions: r.extensions,
    })
  }

  retry(r: CaptureRetry): string {
    this.ensureOpen('retry')
    if (!Number.isInteger(r?.attempt) || r.attempt < 1) {
      throw usage(`retry: "attempt" must be an integer ≥ 1 (the first retry is 1), got ${r?.attempt}`)
    }
    nonNegative(r.delayMs, 'retry', 'delayMs')
    return this.log.add('retry', {
      parent: this.parentOf(r, 'retry'),
      payload: { attempt: r.attempt, reason: r.reason, delay_ms: r.delayMs, target: r.target },
      extensions: r.extensions,
    })
  }

  exception(error: unknown, options: CaptureExceptionOptions = {}): string {
    this.ensureOpen('exception')
    const handled = options.handled ?? true
    const id = this.log.add('exception', {
      parent: this.parentOf(options, 'exception'),
      payload: { ...describeError(error), handled },
      extensions: options.extensions,
    })
    this.recordedErrors.add(error)
    if (!handled) this.failed = true
    return id
  }

  logicalFailure(reason: string, options: CaptureLogicalFailureOptions = {}): string {
    this.ensureOpen('logicalFailure')
    text(reason, 'logicalFailure', 'reason')
    const id = this.log.add('custom', {
      parent: this.parentOf(options, 'logicalFailure'),
      payload: { kind: LOGICAL_FAILURE_KIND, reason, details: options.details },
      extensions: options.extensions,
    })
    this.failed = true
    this.failureReason ??= reason
    return id
  }

  private parentOf(options: { parentEventId?: string } | undefined, method: string): string {
    if (options?.parentEventId === undefined) return this.startEventId
    return this.log.parent(options.parentEventId, method).event_id
  }
}

function text(value: unknown, method: string, field: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw usage(
      `${method}: "${field}" must be a non-empty string, got ${JSON.stringify(value) ?? String(value)}`,
    )
  }
}

function nonNegative(value: number | undefined, method: string, field: string): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw usage(`${method}: "${field}" must be a number ≥ 0, got ${String(value)}`)
  }
}
