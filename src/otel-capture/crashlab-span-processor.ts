import type { Redactor } from '../redact/types.ts'
import type { RunStore } from '../store/types.ts'
import { parentIdOf, type ReadableSpanLike, toOtlpSpan } from './internal/span-shape.ts'
import type { TraceWriter } from './internal/write-trace.ts'

/**
 * Options of `CrashlabSpanProcessor`.
 *
 * @example
 * const options: CrashlabSpanProcessorOptions = { store: '/var/lib/agent/.crashlab', tags: ['prod'] }
 */
export interface CrashlabSpanProcessorOptions {
  /**
   * The run store each agent trace is saved to, as a run: a `RunStore`, a store folder, `true` for the
   * default store, `false` for none. Default, as `record()` and `startCapture()` have it: the default
   * store (`$CRASHLAB_DIR`, the config's `store.dir`, or `.crashlab/`) outside Vitest, none under it;
   * none when `file` is given.
   */
  store?: RunStore | string | boolean
  /** Appends each agent trace to this file as a line of OTLP JSON (`crashlab import` reads it). */
  file?: string
  /** Tags of the stored runs, besides `otel` and `captured`. */
  tags?: string[]
  /** The redaction rules; default the config file's `redaction` (over the defaults), else the defaults. */
  redactor?: Redactor
  /** The project config file: a path, or `false` to read none. Default: the one `loadConfig` finds. */
  config?: string | false
  /** How many traces are kept open at most; past it the oldest is dropped. Default 1000. */
  maxTraces?: number
  /** How many spans of one trace are kept at most; later ones are dropped. Default 10000. */
  maxSpansPerTrace?: number
  /** Where a failure to write goes (it never reaches the app). Default: one `console.warn` line. */
  onError?: (error: Error) => void
}

/** One trace's spans, gathered until its local root ends. */
interface OpenTrace {
  ended: ReadableSpanLike[]
  /** Spans started in this process and not ended yet. */
  open: Set<string>
  /** Every span started in this process: a parent outside it makes a span a local root. */
  local: Set<string>
  rootEnded: boolean
  /** A span of the trace looked like GenAI activity; other traces are never converted. */
  agent: boolean
}

/** Attribute keys of the conventions `tracesToRuns` reads: a cheap test before converting a trace. */
const AGENT_KEY = /^(gen_ai\.|ai\.|llm\.|openinference\.span\.kind$)/

/**
 * An OpenTelemetry span processor that turns the agent traces of a running app into crashlab runs:
 * add it to the app's tracer provider beside its exporter. It keeps each trace's ended spans in memory
 * until the trace's local root span ends, then reads them as `crashlab import` does (docs/otel.md) and
 * writes each agent run, redacted, to the run store (tagged `otel` and `captured`) or as OTLP JSON
 * Lines to `file`. Other traces are dropped. It imports nothing from OpenTelemetry (spans are read by
 * shape), holds at most `maxTraces` open traces, and never throws into the app: a failed write goes
 * to `onError`.
 *
 * @example
 * import { TracerProvider } from '@opentelemetry/sdk-trace'
 * import { CrashlabSpanProcessor } from 'crashlab/otel'
 *
 * const provider = new TracerProvider({ spanProcessors: [new CrashlabSpanProcessor({ store: '.crashlab' })] })
 */
export class CrashlabSpanProcessor {
  private readonly options: CrashlabSpanProcessorOptions
  private readonly traces = new Map<string, OpenTrace>()
  /** The local spans of traces already written: a child that ends after its trace was written is dropped. */
  private readonly written = new Map<string, Set<string>>()
  private readonly maxTraces: number
  private readonly maxSpans: number
  private writes: Promise<void> = Promise.resolve()
  private writer: Promise<TraceWriter> | undefined
  private closed = false

  constructor(options: CrashlabSpanProcessorOptions = {}) {
    this.options = options
    this.maxTraces = Math.max(1, options.maxTraces ?? 1000)
    this.maxSpans = Math.max(1, options.maxSpansPerTrace ?? 10_000)
  }

  /** How many traces are held, waiting for their root span to end. */
  get openTraces(): number {
    return this.traces.size
  }

  onStart(
    span: Pick<ReadableSpanLike, 'spanContext' | 'parentSpanContext' | 'parentSpanId'>,
    _parentContext?: unknown,
  ): void {
    if (this.closed) return
    try {
      const { traceId, spanId } = span.spanContext()
      const written = this.written.get(traceId)
      const parent = parentIdOf(span)
      if (written && parent !== undefined && written.has(parent)) {
        written.add(spanId)
        return
      }
      const trace = this.traceOf(traceId)
      trace.open.add(spanId)
      trace.local.add(spanId)
    } catch (error) {
      this.report(error)
    }
  }

  onEnd(span: ReadableSpanLike): void {
    if (this.closed) return
    try {
      const { traceId, spanId } = span.spanContext()
      if (this.written.get(traceId)?.has(spanId)) return
      const trace = this.traceOf(traceId)
      trace.open.delete(spanId)
      if (trace.ended.length < this.maxSpans) trace.ended.push(span)
      trace.agent ||= Object.keys(span.attributes).some((key) => AGENT_KEY.test(key))
      const parent = parentIdOf(span)
      // A parent in another process (a propagated context) makes this span the root of our part.
      if (parent === undefined || !trace.local.has(parent)) trace.rootEnded = true
      if (trace.rootEnded && trace.open.size === 0) this.finish(traceId, trace)
    } catch (error) {
      this.report(error)
    }
  }

  /**
   * Writes every trace whose root span has ended (a child span still open is left out), and waits for
   * the writes. Traces still running stay, to be written when their root ends.
   */
  async forceFlush(): Promise<void> {
    for (const [traceId, trace] of this.traces) if (trace.rootEnded) this.finish(traceId, trace)
    await this.writes
  }

  /** As `forceFlush`, then drops the traces still running and takes no more spans. */
  async shutdown(): Promise<void> {
    await this.forceFlush()
    this.closed = true
    this.traces.clear()
    this.written.clear()
  }

  private traceOf(traceId: string): OpenTrace {
    let trace = this.traces.get(traceId)
    if (!trace) {
      // A trace whose root never ends (a span left open) must not hold memory forever: the oldest goes.
      if (this.traces.size >= this.maxTraces) this.traces.delete(this.traces.keys().next().value as string)
      trace = { ended: [], open: new Set(), local: new Set(), rootEnded: false, agent: false }
      this.traces.set(traceId, trace)
    }
    return trace
  }

  private finish(traceId: string, trace: OpenTrace): void {
    this.traces.delete(traceId)
    if (trace.open.size > 0) {
      if (this.written.size >= this.maxTraces) this.written.delete(this.written.keys().next().value as string)
      this.written.set(traceId, trace.local)
    }
    if (!trace.agent) return
    // One write at a time: lines of the file stay whole and in order.
    this.writes = this.writes
      .then(async () => {
        const spans = trace.ended.map(toOtlpSpan)
        this.writer ??= import('./internal/write-trace.ts').then(
          ({ TraceWriter }) => new TraceWriter(this.options, (error) => this.report(error)),
        )
        await (await this.writer).write(spans)
      })
      .catch((error) => this.report(error))
  }

  private report(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error))
    try {
      if (this.options.onError) this.options.onError(err)
      else console.warn(`[crashlab] an OpenTelemetry trace was not captured: ${err.message}`)
    } catch {
      // An onError that throws must not reach the app either.
    }
  }
}
