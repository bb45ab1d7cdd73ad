import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { currentPlatform, currentRuntime } from '../case/agentcase/runtime-info.ts'
import { AGENTCASE_FORMAT_NAME, AGENTCASE_VERSION, type AgentCase } from '../case/agentcase/schema.ts'
import { writeAgentCase } from '../case/agentcase/write-agent-case.ts'
import type { JsonObject } from '../case/schema/json.ts'
import { isCrashlabError } from '../errors.ts'
import { VERSION } from '../version.ts'
import { CaptureLog, usage } from './internal/capture-log.ts'
import { copyJson } from './internal/copy-json.ts'
import { EventMethods } from './internal/event-methods.ts'
import type { CaptureCaseOptions, CaptureCloseOptions, ExplicitCapture } from './types.ts'

/**
 * Explicit capture is for code that reaches a model without HTTP (an in-process model, a custom
 * transport) or that wants to record by hand. Nothing is intercepted: each method call is one event.
 */

/**
 * Opens a capture session that writes one AgentCase 0.1 to `options.output` when it is closed.
 * `execution.start` is recorded now; each method appends one event with its sequence, a UUID, its
 * parent and a timestamp, and returns the event id; `close()` appends `execution.end`, sets the
 * outcome (`failure` after an unhandled exception or a logical failure, else `success`), validates,
 * redacts (nothing reaches disk unredacted) and writes the case atomically.
 *
 * `run(fn)` does all of it around a function and keeps the application's exception primary: when `fn`
 * throws, the exception is recorded, the case is written, and the same error is rethrown; if the
 * case cannot be written, that is reported through `onWarning` and never replaces the error.
 *
 * @example
 * import { captureCase } from 'crashlab'
 *
 * const session = captureCase({ output: 'failure.agentcase', name: 'example-agent' })
 * await session.run(async (s) => {
 *   const req = s.modelRequest({ provider: 'local', model: 'tiny-7b', input: { prompt: 'hello' } })
 *   const text = await localModel('hello') // an in-process model: nothing to intercept
 *   s.modelResponse({ parentEventId: req, output: { text } })
 *   const call = s.toolCall({ name: 'get_order', arguments: { id: 'A17' } })
 *   s.toolResult({ parentEventId: call, result: await getOrder('A17') })
 * })
 */
export function captureCase(options: CaptureCaseOptions): ExplicitCapture {
  return new CaptureSession(options)
}

/**
 * The root extension namespace of what capture adds (`{ schema: 1, dropped_values: [...] }` when a value
 * JSON cannot carry was left out); `dev.crashlab` itself belongs to `toAgentCase`.
 *
 * @example
 * const dropped = c.extensions[CAPTURE_EXTENSION]?.dropped_values // ['$.events[3].payload.arguments.cb']
 */
export const CAPTURE_EXTENSION = 'dev.crashlab.capture'

/**
 * The lifecycle half of a capture session: start, finalize once, write (retrying on a later `close`),
 * and keep the application's error primary. The event methods live in `EventMethods`.
 */
class CaptureSession extends EventMethods implements ExplicitCapture {
  readonly caseId = randomUUID()
  readonly executionId = randomUUID()
  readonly startEventId: string
  private readonly options: CaptureCaseOptions
  private readonly startedAt = performance.now()
  private final: AgentCase | undefined
  private written: AgentCase | undefined

  constructor(options: CaptureCaseOptions) {
    if (typeof options?.output !== 'string' || options.output.length === 0) {
      throw usage("captureCase needs the path to write, as in captureCase({ output: 'failure.agentcase' })")
    }
    super(new CaptureLog(options.now ?? (() => new Date())))
    this.options = options
    this.startEventId = this.log.add('execution.start', {
      parent: null,
      payload: {
        name: options.name,
        entrypoint: options.entrypoint,
        input: options.input,
        process_id: process.pid,
      },
    })
  }

  get closed(): boolean {
    return this.final !== undefined
  }

  close(result?: Omit<CaptureCloseOptions, 'error'>): AgentCase
  close(result: CaptureCloseOptions): AgentCase | undefined
  close(result: CaptureCloseOptions = {}): AgentCase | undefined {
    const appError = 'error' in result && result.error !== undefined
    try {
      if (this.final === undefined) {
        if (appError) this.recordEscaped(result.error)
        this.final = this.finish(result)
      }
      this.written ??= writeAgentCase(this.options.output, this.final, {
        ...(this.options.redactor && { redactor: this.options.redactor }),
        ...(this.options.maxBytes !== undefined && { maxBytes: this.options.maxBytes }),
        strictPayloads: true,
      })
      return this.written
    } catch (failure) {
      if (!appError) throw failure
      this.warn(failure)
      return undefined
    }
  }

  async run<T>(fn: (session: ExplicitCapture) => T | PromiseLike<T>): Promise<T> {
    let value: T
    try {
      value = await fn(this)
    } catch (error) {
      // An error of any kind, even `undefined`, is the application's and goes back unchanged.
      this.close({ error: error ?? new Error(`the capture's function threw ${String(error)}`) })
      throw error
    }
    this.close()
    return value
  }

  protected override ensureOpen(method: string): void {
    if (this.final !== undefined) {
      throw usage(
        `${method} after close(): the case of ${this.options.output} is final. Open a new captureCase.`,
      )
    }
  }

  private recordEscaped(error: unknown): void {
    this.failed = true
    if (!this.recordedErrors.has(error)) this.exception(error, { handled: false })
  }

  private finish(result: CaptureCloseOptions): AgentCase {
    const outcome = result.outcome ?? (this.failed ? 'failure' : 'success')
    const reason = result.reason ?? this.failureReason
    this.log.add('execution.end', {
      parent: this.startEventId,
      payload: {
        outcome,
        duration_ms: Math.max(0, Math.round((performance.now() - this.startedAt) * 1000) / 1000),
        reason,
        output: result.output,
      },
    })
    const userMetadata = copyJson(this.options.metadata ?? {})
    for (const path of userMetadata.dropped) this.log.dropped.push(`$.metadata.user_metadata${path.slice(1)}`)
    const dropped = this.log.dropped
    const { provider, model } = this.options
    return {
      format_name: AGENTCASE_FORMAT_NAME,
      format_version: AGENTCASE_VERSION,
      case_id: this.caseId,
      execution_id: this.executionId,
      created_at: this.log.events.at(-1)!.timestamp,
      metadata: {
        reproagent_version: `crashlab/${VERSION}`,
        runtime: currentRuntime(),
        platform: currentPlatform(),
        provider: provider ? { provider_id: provider } : null,
        model: model ? { model_id: model, configuration: {} } : null,
        integration: { integration_id: 'crashlab.capture', integration_version: VERSION },
        user_metadata: (userMetadata.value ?? {}) as JsonObject,
        extensions: {},
      },
      events: this.log.events,
      outcome,
      completeness: result.completeness ?? (dropped.length > 0 ? 'degraded' : 'complete'),
      redaction: {
        status: 'none',
        records: [],
        warnings: [],
        potentially_sensitive_unredacted: false,
        extensions: {},
      },
      replay: null,
      extensions: dropped.length > 0 ? { [CAPTURE_EXTENSION]: { schema: 1, dropped_values: dropped } } : {},
    }
  }

  private warn(failure: unknown): void {
    const code = isCrashlabError(failure) ? ` (${failure.code})` : ''
    const detail = failure instanceof Error ? failure.message.replace(/^\[crashlab\] /, '') : String(failure)
    const message = `[crashlab] capture: the case for ${this.options.output} was not written${code}: ${detail}\nThe application's own error was rethrown unchanged; this is only a warning.`
    try {
      const onWarning =
        this.options.onWarning ?? ((m: string) => process.emitWarning(m, { code: 'CRASHLAB_CAPTURE' }))
      onWarning(message)
    } catch {
      // A warning channel that throws must not replace the application's error either.
    }
  }
}
