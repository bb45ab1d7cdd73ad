import { appendFile, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { type GradeOptions, gradeRun } from '../../checks/grade-run.ts'
import { type OtlpSpan, toOtlpJson, tracesToRuns } from '../../otel/index.ts'
import { storeFor } from '../../production-capture/index.ts'
import { createRedactor } from '../../redact/create-redactor.ts'
import type { Redactor } from '../../redact/types.ts'
import type { CrashlabSpanProcessorOptions } from '../crashlab-span-processor.ts'

/**
 * Writes one finished trace where the span processor was told to: each agent run of it into the run
 * store (tagged `otel` and `captured`), and/or the trace's spans as a line of OTLP JSON appended to a
 * file. Both are redacted first, with the given redactor, else the config file's rules (over the
 * defaults), else the default ones: a secret in a prompt never reaches the disk. A trace with no agent
 * activity writes nothing. Loaded on the first trace, so that importing `crashlab/otel` stays cheap.
 *
 * @example
 * const writer = new TraceWriter({ file: 'agent-traces.jsonl' }, (e) => console.warn(e.message))
 * await writer.write(spans) // 1: the runs the trace held
 */
export class TraceWriter {
  private readonly options: CrashlabSpanProcessorOptions
  private readonly onError: (error: Error) => void
  private setup: Promise<{ redactor: Redactor; grade: GradeOptions }> | undefined

  constructor(options: CrashlabSpanProcessorOptions, onError: (error: Error) => void) {
    this.options = options
    this.onError = onError
  }

  /** Writes the trace's runs; how many agent runs it held (0: nothing written). */
  async write(spans: OtlpSpan[]): Promise<number> {
    const traces = tracesToRuns(spans)
    if (traces.length === 0) return 0
    // A config file that fails to load fails the write: its rules may be what redacts this trace.
    const { redactor, grade } = await this.setupOf()
    const { file, store } = this.options
    if (file !== undefined) {
      await mkdir(dirname(file), { recursive: true })
      await appendFile(file, `${toOtlpJson(redactSpans(spans, redactor))}\n`)
    }
    if (file === undefined || store !== undefined) {
      const opened = await storeFor(store, {
        config: this.options.config,
        warn: (what, error) => this.onError(new Error(`${what}: ${messageOf(error)}`, { cause: error })),
      })
      const tags = ['captured', ...(this.options.tags ?? [])]
      // Graded as an import is: priced, and the config's runtime checks' findings.
      for (const { run } of traces) opened?.save(gradeRun(run, grade), { tags, redactor })
    }
    return traces.length
  }

  /** The redactor and what grades a run: the given redactor, else the config file's rules; its checks and prices. */
  private setupOf(): Promise<{ redactor: Redactor; grade: GradeOptions }> {
    this.setup ??= (async () => {
      // Loaded when first needed, as the store loads it: most apps never read a config file here.
      const { loadConfig } = await import('../../config/load-config.ts')
      const { config } = await loadConfig({ file: this.options.config })
      return {
        redactor: this.options.redactor ?? createRedactor(config.redaction ?? {}),
        grade: { checks: config.checks, prices: config.prices },
      }
    })()
    // A failed load is tried again with the next trace (the file may have been fixed).
    this.setup.catch(() => (this.setup = undefined))
    return this.setup
  }
}

/** The spans with every string redacted: names, attributes (by key and by value), events, status, resource. */
function redactSpans(spans: readonly OtlpSpan[], redactor: Redactor): OtlpSpan[] {
  const view = spans.map((s) => ({
    name: s.name,
    attributes: s.attributes,
    events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
    status: s.status.message,
    resource: s.resource,
  }))
  const { value } = redactor.redact(view)
  return spans.map((s, i) => {
    const r = value[i]!
    return {
      ...s,
      name: r.name,
      attributes: r.attributes,
      events: s.events.map((e, j) => ({ ...e, ...r.events[j]! })),
      status: { code: s.status.code, message: r.status },
      resource: r.resource,
    }
  })
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.replace(/^\[crashlab\] /, '') : String(error)
}
