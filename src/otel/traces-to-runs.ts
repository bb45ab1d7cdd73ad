import { hash } from 'node:crypto'
import { canonicalStringify } from '../case/canonical-json.ts'
import { createRun } from '../case/create-run.ts'
import type { JsonObject, JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import type { LlmStep, Step, ToolStep } from '../case/schema/step.ts'
import { readAiSdkSpan } from './internal/ai-sdk.ts'
import type { Convention, FoundInference, FoundSpan, FoundTool } from './internal/found-spans.ts'
import { readGenAiSpan } from './internal/gen-ai.ts'
import { readAgentsSdkSpan } from './internal/openai-agents.ts'
import { readOpenInferenceSpan } from './internal/openinference.ts'
import { SpanReader } from './internal/span-reader.ts'
import type { OtlpSpan } from './read-otlp.ts'

/** One trace turned into a run, with what the import found on the way. */
export interface ImportedTrace {
  /** A valid Run: `completeness: 'partial'` when a step lacks its content. */
  run: Run
  traceId: string
  /** The conventions the trace's spans followed. */
  conventions: Convention[]
  /** Every attribute key (and span event) read, sorted; keys of earlier convention versions end in ` (previous)`. */
  keys: string[]
  /** The steps whose content the trace did not hold (content capture is opt-in), in step order. */
  incompleteSteps: number[]
  /** Message parts the import could not map (unknown part types or roles), over the whole run. */
  droppedParts: number
}

/**
 * Turns OTLP spans into runs: one run per trace that holds GenAI activity (an inference or a tool
 * execution under the OpenTelemetry GenAI conventions, the AI SDK's `ai.*` spans or OpenInference),
 * its steps in start-time order. Other traces are left out. See docs/otel.md for the mapping.
 *
 * @example
 * const [first] = tracesToRuns(readOtlp(readFileSync('traces.json', 'utf8'), 'traces.json'))
 * first.run.steps.map((s) => s.type) // ['llm', 'tool', 'llm']
 * first.incompleteSteps // [] when the trace captured content
 */
export function tracesToRuns(spans: readonly OtlpSpan[]): ImportedTrace[] {
  const traces = new Map<string, OtlpSpan[]>()
  const seen = new Set<string>()
  for (const span of spans) {
    // A collector that retried an export writes the same span twice: it is one step.
    const key = `${span.traceId}/${span.spanId}`
    if (seen.has(key)) continue
    seen.add(key)
    const list = traces.get(span.traceId)
    if (list) list.push(span)
    else traces.set(span.traceId, [span])
  }
  const out: ImportedTrace[] = []
  for (const [traceId, list] of traces) {
    const imported = traceToRun(traceId, list)
    if (imported) out.push(imported)
  }
  return out
}

function traceToRun(traceId: string, spans: OtlpSpan[]): ImportedTrace | undefined {
  const keys = new Set<string>()
  const found: FoundSpan[] = []
  for (const span of spans) {
    const r = new SpanReader(span, keys)
    // The AI SDK's spans carry some gen_ai.* keys and OpenInference's processors add theirs to other
    // conventions' spans: the most specific reader goes first.
    const hit = readAgentsSdkSpan(r) ?? readAiSdkSpan(r) ?? readOpenInferenceSpan(r) ?? readGenAiSpan(r)
    if (hit) found.push(hit)
  }
  // Span times are often in whole milliseconds (the OTel JS SDK's clock): a step that starts in the
  // same millisecond as the one before it ended is told apart by its end, as exports group spans by
  // instrumentation scope rather than by time.
  const work = found
    .filter((f): f is FoundInference | FoundTool => f.kind !== 'agent')
    .sort(
      (a, b) =>
        compareNanos(a.span.startTimeUnixNano, b.span.startTimeUnixNano) ||
        compareNanos(a.span.endTimeUnixNano, b.span.endTimeUnixNano),
    )
  if (work.length === 0) return undefined

  let start = spans[0]!.startTimeUnixNano
  let end = spans[0]!.endTimeUnixNano
  for (const s of spans) {
    if (s.startTimeUnixNano < start) start = s.startTimeUnixNano
    if (s.endTimeUnixNano > end) end = s.endTimeUnixNano
  }
  const root = spans.find((s) => s.parentSpanId === null || !spans.some((p) => p.spanId === s.parentSpanId))
  // The outermost agent names the run: a sub-agent starts later than the agent that called it.
  const agent = found
    .filter((f) => f.kind === 'agent' && f.name)
    .sort((a, b) => compareNanos(a.span.startTimeUnixNano, b.span.startTimeUnixNano))[0]
  const name = (agent?.kind === 'agent' && agent.name) || root?.name || traceId

  const incompleteSteps: number[] = []
  const steps: Step[] = work.map((f, index) => {
    if (f.kind === 'llm') {
      if (!f.inputCaptured || !f.outputCaptured) incompleteSteps.push(index)
      return llmStep(f, index)
    }
    if (f.args === undefined || (f.result === undefined && f.error === null)) incompleteSteps.push(index)
    return toolStep(f, index)
  })

  const conventions = [...new Set(found.map((f) => f.convention))].sort()
  const notes = [
    'imported from OpenTelemetry spans: wire fields hold the span, not an HTTP exchange',
    'tool side effects are unknown: every tool step is marked sideEffects: true',
  ]
  if (incompleteSteps.length > 0) {
    notes.push(
      `steps ${incompleteSteps.join(', ')} lack their content: the trace did not capture it (opt-in)`,
    )
  }
  const run = createRun({
    name,
    tags: ['otel'],
    startedAt: new Date(nanosToMs(start)),
    metadata: {
      otelImport: {
        traceId,
        conventions,
        keys: [...keys].sort(),
        incompleteSteps,
        ...(root?.resource['service.name'] !== undefined && { service: root.resource['service.name'] }),
        notes,
      },
    },
  })
  const llm = steps.filter((s): s is LlmStep => s.type === 'llm')
  const sum = (k: 'inputTokens' | 'outputTokens' | 'cachedTokens' | 'reasoningTokens') =>
    llm.reduce((n, s) => n + (s.response?.normalized?.usage?.[k] ?? 0), 0)
  const failed = root?.status.code === 2 ? root : undefined
  const firstUser = llm[0]?.request.normalized?.messages.find((m) => m.role === 'user')
  const lastText = llm.at(-1)?.response?.normalized?.parts.find((p) => p.type === 'text')
  Object.assign(run, {
    steps,
    status: failed ? 'error' : 'ok',
    error: failed
      ? {
          name: String(failed.attributes['error.type'] ?? 'Error'),
          message: failed.status.message || 'the agent failed',
        }
      : null,
    completeness: incompleteSteps.length > 0 ? 'partial' : 'complete',
    input: firstUser?.parts.find((p) => p.type === 'text')?.text ?? null,
    output: lastText?.type === 'text' ? lastText.text : null,
    endedAt: new Date(nanosToMs(end)).toISOString(),
    usage: {
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens'),
      cachedTokens: sum('cachedTokens'),
      reasoningTokens: sum('reasoningTokens'),
      llmCalls: llm.length,
      toolCalls: steps.length - llm.length,
    },
  } satisfies Partial<Run>)
  const droppedParts = work.reduce((n, f) => n + (f.kind === 'llm' ? f.lost.parts : 0), 0)
  return { run, traceId, conventions, keys: [...keys].sort(), incompleteSteps, droppedParts }
}

function llmStep(f: FoundInference, index: number): LlmStep {
  const body = spanBody(f.span)
  const server = f.span.attributes['server.address']
  const port = f.span.attributes['server.port']
  return {
    index,
    timing: timingOf(f.span),
    error:
      f.span.status.code === 2
        ? {
            name: String(f.span.attributes['error.type'] ?? 'Error'),
            message: f.span.status.message || 'the model call failed',
          }
        : null,
    type: 'llm',
    provider: f.provider,
    endpoint: f.operation,
    request: {
      // The host lets the price catalog know the provider; the path is unknown.
      wire: {
        method: 'POST',
        url: typeof server === 'string' ? `https://${server}${port ? `:${port}` : ''}` : '',
        headers: {},
        body,
      },
      // Without the messages there is no request to speak of: the span's attributes stay in the wire body.
      normalized: f.inputCaptured ? f.request : null,
      requestHash: `sha256:${hash('sha256', canonicalStringify(f.inputCaptured ? f.request : body), 'hex')}`,
    },
    response: {
      wire: { status: f.span.status.code === 2 ? 500 : 200, headers: {}, body: null },
      normalized: f.response,
      incomplete: !f.outputCaptured,
    },
  }
}

function toolStep(f: FoundTool, index: number): ToolStep {
  return {
    index,
    timing: timingOf(f.span),
    error: f.error,
    type: 'tool',
    name: f.name,
    ...(f.callId !== undefined && { callId: f.callId }),
    args: f.args ?? null,
    ...(f.result !== undefined && f.error === null && { result: f.result }),
    // A trace does not say whether a tool changes the world: a fork must never run it live.
    sideEffects: true,
  }
}

/** What the wire fields keep of a span: its name, ids and attributes, as it arrived. */
function spanBody(span: OtlpSpan): JsonObject {
  return {
    name: span.name,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    attributes: span.attributes as { [key: string]: JsonValue },
  }
}

function timingOf(span: OtlpSpan): Step['timing'] {
  return {
    startedAt: new Date(nanosToMs(span.startTimeUnixNano)).toISOString(),
    // A span that ended before it started (clock skew) lasted no time.
    durationMs: Math.max(0, Number(span.endTimeUnixNano - span.startTimeUnixNano) / 1e6),
  }
}

function nanosToMs(nanos: bigint): number {
  return Number(nanos / 1_000_000n)
}

function compareNanos(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}
