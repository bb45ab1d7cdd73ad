import type { JsonObject } from '../../case/schema/json.ts'
import type { OtlpSpan } from '../read-otlp.ts'
import { toKeyValues } from './any-value.ts'

/**
 * Spans as one OTLP JSON `ExportTraceServiceRequest` on a single line (a line of JSON Lines, as the
 * Collector's file exporter writes them): grouped by resource and instrumentation scope, attributes
 * encoded as OTLP `AnyValue`s, times as strings of nanoseconds. `readOtlp` reads it back into the same
 * spans.
 *
 * @example
 * appendFileSync('traces.jsonl', `${toOtlpJson(spans)}\n`)
 * readOtlp(toOtlpJson(spans)) // the same spans
 */
export function toOtlpJson(spans: readonly OtlpSpan[]): string {
  const resources = new Map<string, { resource: JsonObject; scopes: Map<string, OtlpSpan[]> }>()
  for (const span of spans) {
    const resourceKey = JSON.stringify(span.resource)
    let entry = resources.get(resourceKey)
    if (!entry) {
      entry = { resource: span.resource, scopes: new Map() }
      resources.set(resourceKey, entry)
    }
    const scopeKey = JSON.stringify([span.scope.name, span.scope.version])
    const list = entry.scopes.get(scopeKey)
    if (list) list.push(span)
    else entry.scopes.set(scopeKey, [span])
  }
  const resourceSpans = [...resources.values()].map(({ resource, scopes }) => ({
    resource: { attributes: toKeyValues(resource) },
    scopeSpans: [...scopes.values()].map((list) => ({
      scope: { name: list[0]!.scope.name, version: list[0]!.scope.version },
      spans: list.map(spanOf),
    })),
  }))
  return JSON.stringify({ resourceSpans })
}

function spanOf(span: OtlpSpan): Record<string, unknown> {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId !== null && { parentSpanId: span.parentSpanId }),
    name: span.name,
    startTimeUnixNano: String(span.startTimeUnixNano),
    endTimeUnixNano: String(span.endTimeUnixNano),
    attributes: toKeyValues(span.attributes),
    events: span.events.map((e) => ({
      timeUnixNano: String(e.timeUnixNano),
      name: e.name,
      attributes: toKeyValues(e.attributes),
    })),
    status: { code: span.status.code, ...(span.status.message !== '' && { message: span.status.message }) },
  }
}
