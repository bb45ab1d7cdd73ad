import { hash } from 'node:crypto'
import type { JsonObject, JsonValue } from '../case/schema/json.ts'
import type { Message, Part } from '../case/schema/normalized.ts'
import type { Run } from '../case/schema/run.ts'
import type { LlmStep, StepError, ToolStep } from '../case/schema/step.ts'
import { redactDocument } from '../redact/redact-document.ts'
import type { Redactor } from '../redact/types.ts'
import { VERSION } from '../version.ts'
import { type OtlpKeyValue, toKeyValues } from './internal/any-value.ts'

/** One span of an OTLP JSON export, as `runsToOtlp` writes it. */
export interface OtlpJsonSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  /** 1 internal, 3 client (OTLP's `SpanKind`). */
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: OtlpKeyValue[]
  status: { code: number; message?: string }
}

/** An OTLP `ExportTraceServiceRequest` as OTLP JSON: what an OTLP/HTTP receiver accepts at `/v1/traces`. */
export interface ExportTraceServiceRequest {
  resourceSpans: Array<{
    resource: { attributes: OtlpKeyValue[] }
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: OtlpJsonSpan[] }>
  }>
}

export interface RunsToOtlpOptions {
  /**
   * Write the messages, tool definitions, tool arguments and results (`gen_ai.input.messages`, ...).
   * Off by default, as in the instrumentations: without it a span holds the model, usage and timing.
   */
  includeContent?: boolean
  /** The resource's `service.name`. Default: `crashlab`. */
  serviceName?: string
  /** The rules each run is redacted with first. Default: the default redactor. */
  redactor?: Redactor
}

/** crashlab's adapters by the provider name of the GenAI conventions (`gen_ai.provider.name`). */
const PROVIDERS: Record<string, string> = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'anthropic-messages': 'anthropic',
  gemini: 'gcp.gemini',
}
const INFERENCE = ['chat', 'text_completion', 'generate_content']
const SPAN_KIND_INTERNAL = 1
const SPAN_KIND_CLIENT = 3

/**
 * Runs as OpenTelemetry traces under the GenAI semantic conventions: each run one trace, an
 * `invoke_agent` span holding a `chat` span per model call and an `execute_tool` span per tool call
 * (MCP tool calls included; `http` steps are not written). Each run is redacted first. Ids are derived
 * from the run id and the step index, so exporting a run twice writes the same trace. The result reads
 * back into the same steps with `readOtlp` and `tracesToRuns`. See docs/otel.md.
 *
 * @example
 * const doc = runsToOtlp([run], { includeContent: true })
 * writeFileSync('trace.json', JSON.stringify(doc))
 * tracesToRuns(readOtlp(JSON.stringify(doc)))[0].run.steps.length === run.steps.filter((s) => s.type !== 'http').length
 */
export function runsToOtlp(runs: readonly Run[], options: RunsToOtlpOptions = {}): ExportTraceServiceRequest {
  const spans = runs.flatMap((run) =>
    runSpans(redactDocument(run, options.redactor ? { redactor: options.redactor } : {}).value, options),
  )
  return {
    resourceSpans: [
      {
        resource: { attributes: toKeyValues({ 'service.name': options.serviceName ?? 'crashlab' }) },
        scopeSpans: [{ scope: { name: 'crashlab', version: VERSION }, spans }],
      },
    ],
  }
}

function runSpans(run: Run, options: RunsToOtlpOptions): OtlpJsonSpan[] {
  const traceId = idOf(`trace/${run.id}`, 32)
  const rootId = idOf(`span/${run.id}/agent`, 16)
  const content = options.includeContent === true
  const start = nanosOf(run.startedAt, 0)
  const steps = run.steps.filter((s): s is LlmStep | ToolStep => s.type !== 'http')
  let end = run.endedAt ? nanosOf(run.endedAt, 0) : start
  for (const s of steps) {
    const stepEnd = nanosOf(s.timing.startedAt, s.timing.durationMs)
    if (stepEnd > end) end = stepEnd
  }
  const root: OtlpJsonSpan = {
    traceId,
    spanId: rootId,
    name: `invoke_agent ${run.name}`,
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(end),
    attributes: toKeyValues({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': run.name,
      'gen_ai.conversation.id': run.id,
      ...errorType(run.status === 'error' ? run.error : null),
    }),
    status: statusOf(run.status === 'error' ? (run.error ?? { name: 'Error', message: '' }) : null),
  }
  return [
    root,
    ...steps.map((step) => {
      const attributes = step.type === 'llm' ? llmAttributes(step, content) : toolAttributes(step, content)
      return {
        traceId,
        spanId: idOf(`span/${run.id}/${step.index}`, 16),
        parentSpanId: rootId,
        name: `${attributes['gen_ai.operation.name']} ${spanSubject(step, attributes)}`,
        kind: step.type === 'llm' ? SPAN_KIND_CLIENT : SPAN_KIND_INTERNAL,
        startTimeUnixNano: String(nanosOf(step.timing.startedAt, 0)),
        endTimeUnixNano: String(nanosOf(step.timing.startedAt, step.timing.durationMs)),
        attributes: toKeyValues({ ...attributes, ...errorType(step.error) }),
        status: statusOf(step.error),
      }
    }),
  ]
}

function spanSubject(step: LlmStep | ToolStep, attributes: JsonObject): string {
  return step.type === 'tool' ? step.name : String(attributes['gen_ai.request.model'])
}

function llmAttributes(step: LlmStep, content: boolean): JsonObject {
  const request = step.request.normalized
  const response = step.response?.normalized ?? null
  const params = request?.params ?? {}
  const extra = params.extra ?? {}
  const attrs: { [key: string]: JsonValue | undefined } = {
    'gen_ai.operation.name': INFERENCE.includes(step.endpoint) ? step.endpoint : 'chat',
    'gen_ai.provider.name': PROVIDERS[step.provider] ?? step.provider,
    'gen_ai.request.model': request?.model ?? response?.model ?? wireModel(step) ?? 'unknown',
    'gen_ai.request.temperature': params.temperature,
    'gen_ai.request.top_p': params.topP,
    'gen_ai.request.max_tokens': params.maxTokens,
    'gen_ai.request.seed': params.seed,
    'gen_ai.request.stop_sequences': params.stop,
    'gen_ai.request.stream': params.stream,
    'gen_ai.request.top_k': extra.top_k,
    'gen_ai.request.frequency_penalty': extra.frequency_penalty,
    'gen_ai.request.presence_penalty': extra.presence_penalty,
    'gen_ai.request.choice.count': extra.n,
    'gen_ai.response.id': response?.requestId ?? undefined,
    'gen_ai.response.model': response?.model ?? undefined,
    'gen_ai.response.finish_reasons': response?.finishReason ? [response.finishReason] : undefined,
    'gen_ai.usage.input_tokens': response?.usage?.inputTokens,
    'gen_ai.usage.output_tokens': response?.usage?.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': response?.usage?.cachedTokens,
    'gen_ai.usage.cache_creation.input_tokens': response?.usage?.cacheWriteTokens,
    'gen_ai.usage.reasoning.output_tokens': response?.usage?.reasoningTokens,
    ...serverOf(step.request.wire.url),
  }
  if (content && request) {
    if (request.system.length > 0) attrs['gen_ai.system_instructions'] = json(request.system.map(partOf))
    attrs['gen_ai.input.messages'] = json(request.messages.map(messageOf))
    if (request.tools.length > 0)
      attrs['gen_ai.tool.definitions'] = json(
        request.tools.map((t) => ({ type: 'function', ...t }) as unknown as JsonObject),
      )
  }
  if (content && response && step.response?.incomplete !== true) {
    const parts = [...response.parts, ...response.toolCalls].map(partOf)
    attrs['gen_ai.output.messages'] = json([
      {
        role: 'assistant',
        parts,
        ...(response.finishReason !== null && { finish_reason: response.finishReason }),
      },
    ])
  }
  return withoutUndefined(attrs)
}

function toolAttributes(step: ToolStep, content: boolean): JsonObject {
  const attrs: { [key: string]: JsonValue | undefined } = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': step.name,
    'gen_ai.tool.call.id': step.callId,
    // The protocol's own method (`tools/call`) says the tool was an MCP server's.
    'mcp.method.name': step.mcp?.method,
  }
  if (content) {
    // An imported step without its arguments has `args: null`: nothing to write.
    if (step.args !== null) attrs['gen_ai.tool.call.arguments'] = json(step.args)
    if (step.result !== undefined) attrs['gen_ai.tool.call.result'] = json(step.result)
  }
  return withoutUndefined(attrs)
}

/** A crashlab part as a part of the GenAI conventions' messages. */
function partOf(p: Part): JsonObject {
  switch (p.type) {
    case 'text':
      return { type: 'text', content: p.text }
    case 'reasoning':
      return { type: 'reasoning', content: p.text }
    case 'tool_call':
      // Arguments that were not JSON go out as the text the model wrote.
      return { type: 'tool_call', id: p.id, name: p.name, arguments: p.argsText ?? json(p.args) }
    case 'tool_result':
      return {
        type: 'tool_call_response',
        id: p.id,
        ...(p.name !== undefined && { name: p.name }),
        response: p.content,
      }
    case 'media':
      // Never the bytes: a reference when there is one, else what kind of media it was.
      return p.ref !== undefined
        ? { type: 'uri', mime_type: p.mediaType, uri: p.ref, modality: modalityOf(p.mediaType) }
        : { type: 'blob', mime_type: p.mediaType, modality: modalityOf(p.mediaType) }
  }
}

function messageOf(m: Message): JsonObject {
  return { role: m.role, parts: m.parts.map(partOf), ...(m.name !== undefined && { name: m.name }) }
}

function modalityOf(mediaType: string): string {
  const kind = mediaType.split('/')[0]
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'file'
}

/** `server.address` and `server.port` from the wire URL. */
function serverOf(url: string): JsonObject {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return {}
  }
  if (parsed.hostname === '') return {}
  const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'http:' ? 80 : 443
  return { 'server.address': parsed.hostname, 'server.port': port }
}

/** The model a run imported without its request kept in the span's attributes (the wire body). */
function wireModel(step: LlmStep): string | undefined {
  const body = step.request.wire.body
  const attributes =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? body.attributes : undefined
  const model =
    attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes)
      ? (attributes['gen_ai.request.model'] ?? attributes['gen_ai.response.model'])
      : undefined
  return typeof model === 'string' ? model : undefined
}

function errorType(error: StepError | null): JsonObject {
  return error ? { 'error.type': error.name } : {}
}

function statusOf(error: StepError | null): OtlpJsonSpan['status'] {
  return error ? { code: 2, message: error.message } : { code: 0 }
}

/** The structured values of the conventions go out as JSON text, as the instrumentations write them. */
function json(value: JsonValue): string {
  return JSON.stringify(value)
}

function withoutUndefined(o: { [key: string]: JsonValue | undefined }): JsonObject {
  const out: JsonObject = {}
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v
  return out
}

/** A hex id from a hash of `seed`: the same run exports to the same ids. */
function idOf(seed: string, digits: number): string {
  return hash('sha256', `crashlab/${seed}`, 'hex').slice(0, digits)
}

/** An ISO instant plus a duration in (fractional) milliseconds, in nanoseconds since the epoch. */
function nanosOf(instant: string, plusMs: number): bigint {
  const ms = Date.parse(instant)
  return BigInt(Number.isFinite(ms) ? ms : 0) * 1_000_000n + BigInt(Math.round(plusMs * 1e6))
}
