import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { OtlpSpan } from '../../otel/index.ts'

/** OpenTelemetry's `HrTime`: seconds and nanoseconds since the Unix epoch. */
export type HrTime = [number, number]

/** What crashlab reads of a span context. */
export interface SpanContextLike {
  traceId: string
  spanId: string
}

/**
 * The span the OpenTelemetry JS SDK hands a span processor (`ReadableSpan`), as far as crashlab reads
 * it. Typed by shape, so that crashlab needs no OpenTelemetry package: SDK 2 and 3 give
 * `parentSpanContext` and `instrumentationScope`, SDK 1 `parentSpanId` and `instrumentationLibrary`.
 */
export interface ReadableSpanLike {
  readonly name: string
  spanContext(): SpanContextLike
  readonly parentSpanContext?: SpanContextLike | undefined
  readonly parentSpanId?: string | undefined
  readonly startTime: HrTime
  readonly endTime: HrTime
  readonly status: { code: number; message?: string | undefined }
  readonly attributes: Readonly<Record<string, unknown>>
  readonly events: ReadonlyArray<{
    name: string
    time: HrTime
    attributes?: Readonly<Record<string, unknown>> | undefined
  }>
  readonly resource?: { readonly attributes: Readonly<Record<string, unknown>> } | undefined
  readonly instrumentationScope?: { name: string; version?: string | undefined } | undefined
  readonly instrumentationLibrary?: { name: string; version?: string | undefined } | undefined
}

/** The span's parent in its trace; undefined for a root (an invalid, all-zero id is none). */
export function parentIdOf(span: Pick<ReadableSpanLike, 'parentSpanContext' | 'parentSpanId'>) {
  const id = span.parentSpanContext?.spanId ?? span.parentSpanId
  return id && !/^0*$/.test(id) ? id : undefined
}

/**
 * A finished span as an `OtlpSpan`, the shape `tracesToRuns` reads: attributes as plain JSON, times
 * as bigint nanoseconds.
 *
 * @example
 * const spans = ended.map(toOtlpSpan)
 * tracesToRuns(spans)
 */
export function toOtlpSpan(span: ReadableSpanLike): OtlpSpan {
  const { traceId, spanId } = span.spanContext()
  const scope = span.instrumentationScope ?? span.instrumentationLibrary
  return {
    traceId,
    spanId,
    parentSpanId: parentIdOf(span) ?? null,
    name: span.name,
    startTimeUnixNano: nanosOf(span.startTime),
    endTimeUnixNano: nanosOf(span.endTime),
    attributes: jsonAttributes(span.attributes),
    events: span.events.map((e) => ({
      name: e.name,
      timeUnixNano: nanosOf(e.time),
      attributes: jsonAttributes(e.attributes ?? {}),
    })),
    status: { code: span.status.code, message: span.status.message ?? '' },
    resource: jsonAttributes(span.resource?.attributes ?? {}),
    scope: { name: scope?.name ?? '', version: scope?.version ?? '' },
  }
}

function nanosOf([seconds, nanos]: HrTime): bigint {
  return BigInt(Math.trunc(seconds)) * 1_000_000_000n + BigInt(Math.trunc(nanos))
}

/** OpenTelemetry attribute values (primitives and arrays of them) as JSON; unset ones are left out. */
function jsonAttributes(attributes: Readonly<Record<string, unknown>>): JsonObject {
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(attributes)) {
    const json = jsonOf(value)
    if (json !== undefined) out[key] = json
  }
  return out
}

function jsonOf(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  // JSON has no NaN or infinities: OTLP JSON writes them as strings too.
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value)
  if (Array.isArray(value)) return value.map((v) => jsonOf(v) ?? null)
  return undefined
}
