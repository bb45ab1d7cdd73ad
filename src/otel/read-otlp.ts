import type { JsonObject } from '../case/schema/json.ts'
import { CrashlabError } from '../errors.ts'
import { keyValues } from './internal/any-value.ts'

/** An event inside a span (the older GenAI conventions put messages there). */
export interface OtlpSpanEvent {
  name: string
  /** Nanoseconds since the Unix epoch, as a bigint: a double cannot hold them. */
  timeUnixNano: bigint
  attributes: JsonObject
}

/** One span of an OTLP trace, with its attributes decoded from OTLP's `AnyValue` encoding. */
export interface OtlpSpan {
  /** 32 lower-case hex digits. */
  traceId: string
  /** 16 lower-case hex digits. */
  spanId: string
  parentSpanId: string | null
  name: string
  startTimeUnixNano: bigint
  endTimeUnixNano: bigint
  attributes: JsonObject
  events: OtlpSpanEvent[]
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string }
  /** The attributes of the resource that emitted the span (`service.name`, ...). */
  resource: JsonObject
  scope: { name: string; version: string }
}

const STATUS_CODES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
}

/**
 * Reads OTLP JSON traces: one `ExportTraceServiceRequest` document (`{ resourceSpans: [...] }`), as
 * an SDK's file exporter or `curl` writes it, or JSON Lines of them, as the OpenTelemetry Collector's
 * file exporter writes it. Spans come out in file order, their attributes decoded. Throws
 * `E_OTLP_MALFORMED` naming the file, the line and what is wrong.
 *
 * @example
 * const spans = readOtlp(readFileSync('traces.jsonl', 'utf8'), 'traces.jsonl')
 * spans[0].attributes['gen_ai.operation.name'] // 'chat'
 */
export function readOtlp(text: string, source = 'the OTLP input'): OtlpSpan[] {
  const body = text.replace(/^\uFEFF/, '')
  if (body.trim() === '') fail(source, 'is empty: expected OTLP JSON ({ "resourceSpans": [...] })')
  let docs: Array<{ doc: unknown; line: number | null }>
  try {
    docs = [{ doc: JSON.parse(body), line: null }]
  } catch (docError) {
    // Not one document: JSON Lines, one ExportTraceServiceRequest per line.
    docs = []
    const lines = body.split('\n')
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim()
      if (line === '') continue
      try {
        docs.push({ doc: JSON.parse(line), line: i + 1 })
      } catch (cause) {
        // A first line that is not JSON: a document (pretty-printed, say) that is broken, not JSON Lines.
        if (docs.length === 0) fail(source, `is not JSON (${(docError as Error).message})`, docError)
        fail(source, `line ${i + 1} is not JSON (${(cause as Error).message})`, cause)
      }
    }
  }
  const spans: OtlpSpan[] = []
  for (const { doc, line } of docs) spans.push(...readDocument(doc, source, line))
  return spans
}

function readDocument(doc: unknown, source: string, line: number | null): OtlpSpan[] {
  const where = line === null ? '' : ` line ${line}:`
  const resourceSpans = (doc as { resourceSpans?: unknown } | null)?.resourceSpans
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || !Array.isArray(resourceSpans)) {
    fail(
      source,
      `${where} is not an OTLP trace export: expected an object with a "resourceSpans" array ` +
        '(an ExportTraceServiceRequest as OTLP JSON). Metrics and logs exports are not traces.',
    )
  }
  const out: OtlpSpan[] = []
  resourceSpans.forEach((rs: unknown, r: number) => {
    const at = `${where} resourceSpans[${r}]`
    const { resource, scopeSpans } = (rs ?? {}) as {
      resource?: { attributes?: unknown }
      scopeSpans?: unknown
    }
    const resourceAttrs = attributesOf(resource?.attributes, source, `${at}.resource.attributes`)
    if (scopeSpans !== undefined && !Array.isArray(scopeSpans))
      fail(source, `${at}.scopeSpans is not an array`)
    ;((scopeSpans ?? []) as unknown[]).forEach((ss, s) => {
      const { scope, spans } = (ss ?? {}) as {
        scope?: { name?: unknown; version?: unknown }
        spans?: unknown
      }
      if (spans !== undefined && !Array.isArray(spans))
        fail(source, `${at}.scopeSpans[${s}].spans is not an array`)
      const scopeInfo = {
        name: typeof scope?.name === 'string' ? scope.name : '',
        version: typeof scope?.version === 'string' ? scope.version : '',
      }
      ;((spans ?? []) as unknown[]).forEach((span, i) => {
        out.push(readSpan(span, source, `${at}.scopeSpans[${s}].spans[${i}]`, resourceAttrs, scopeInfo))
      })
    })
  })
  return out
}

function readSpan(
  raw: unknown,
  source: string,
  at: string,
  resource: JsonObject,
  scope: OtlpSpan['scope'],
): OtlpSpan {
  if (raw === null || typeof raw !== 'object') fail(source, `${at} is not a span object`)
  const s = raw as Record<string, unknown>
  const traceId = idOf(s.traceId, 16)
  const spanId = idOf(s.spanId, 8)
  if (!traceId) fail(source, `${at}.traceId is not a trace id (32 hex digits): ${JSON.stringify(s.traceId)}`)
  if (!spanId) fail(source, `${at}.spanId is not a span id (16 hex digits): ${JSON.stringify(s.spanId)}`)
  const start = nanosOf(s.startTimeUnixNano)
  if (start === null)
    fail(source, `${at}.startTimeUnixNano is not a time in nanoseconds (a string of digits)`)
  const end = s.endTimeUnixNano === undefined ? start : nanosOf(s.endTimeUnixNano)
  if (end === null) fail(source, `${at}.endTimeUnixNano is not a time in nanoseconds (a string of digits)`)
  const status = (s.status ?? {}) as { code?: unknown; message?: unknown }
  const code = typeof status.code === 'number' ? status.code : (STATUS_CODES[String(status.code)] ?? 0)
  const events = Array.isArray(s.events) ? s.events : []
  return {
    traceId,
    spanId,
    parentSpanId: idOf(s.parentSpanId, 8),
    name: typeof s.name === 'string' ? s.name : '',
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes: attributesOf(s.attributes, source, `${at}.attributes`),
    events: events.map((e: unknown, i: number) => {
      const ev = (e ?? {}) as { name?: unknown; timeUnixNano?: unknown; attributes?: unknown }
      return {
        name: typeof ev.name === 'string' ? ev.name : '',
        timeUnixNano: nanosOf(ev.timeUnixNano) ?? start,
        attributes: attributesOf(ev.attributes, source, `${at}.events[${i}].attributes`),
      }
    }),
    status: { code, message: typeof status.message === 'string' ? status.message : '' },
    resource,
    scope,
  }
}

function attributesOf(list: unknown, source: string, at: string): JsonObject {
  if (list === undefined || list === null) return {}
  const decoded = Array.isArray(list) ? keyValues(list) : undefined
  if (!decoded) {
    fail(
      source,
      `${at} is not a list of OTLP attributes ([{ "key": ..., "value": { "stringValue" | "intValue" | ... } }])`,
    )
  }
  return decoded
}

/** A hex id; OTLP JSON writes hex, but proto3's own JSON mapping (some exporters) writes base64. */
function idOf(v: unknown, bytes: number): string | null {
  if (typeof v !== 'string' || v === '') return null
  if (v.length === bytes * 2 && /^[0-9a-f]+$/i.test(v)) return /^0+$/.test(v) ? null : v.toLowerCase()
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(v)) {
    const hex = Buffer.from(v, 'base64').toString('hex')
    if (hex.length === bytes * 2) return hex
  }
  return null
}

function nanosOf(v: unknown): bigint | null {
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v)
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  return null
}

function fail(source: string, what: string, cause?: unknown): never {
  throw new CrashlabError(
    'E_OTLP_MALFORMED',
    `${source} ${what.trim().replace(/\.$/, '')}. Pass OTLP JSON traces, as the file exporters of the OpenTelemetry ` +
      'SDKs and the Collector write them.',
    { subject: source, cause },
  )
}
