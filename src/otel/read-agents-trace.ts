import type { JsonObject, JsonValue } from '../case/schema/json.ts'
import { CrashlabError } from '../errors.ts'
import { AGENTS_SPAN_DATA } from './internal/openai-agents.ts'
import type { OtlpSpan } from './read-otlp.ts'

/**
 * Reads the OpenAI Agents SDK's own trace payload (what its `OpenAITracingExporter` posts to its ingest
 * endpoint, `{ data: [{ object: 'trace', … }, { object: 'trace.span', span_data, … }] }`; not OTLP): one
 * payload, an array of them, or JSON Lines of them. Each span comes out as a span `tracesToRuns` reads,
 * its `span_data` kept whole under `openai.agents.span_data`, its ids without their `trace_`/`span_`
 * prefixes, its ISO times as nanoseconds. Throws `E_OTLP_MALFORMED` naming the file and what is wrong.
 *
 * @example
 * const runs = tracesToRuns(readAgentsTrace(readFileSync('ingest.json', 'utf8'), 'ingest.json'))
 */
export function readAgentsTrace(text: string, source = 'the trace payload'): OtlpSpan[] {
  const payloads: unknown[] = []
  try {
    const whole = JSON.parse(text) as unknown
    payloads.push(...(Array.isArray(whole) ? whole : [whole]))
  } catch {
    for (const [i, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue
      try {
        payloads.push(JSON.parse(line))
      } catch {
        throw malformed(source, `line ${i + 1} is not JSON`)
      }
    }
  }
  const spans: OtlpSpan[] = []
  payloads.forEach((payload, p) => {
    const data = (payload as { data?: unknown } | null)?.data
    if (!Array.isArray(data)) throw malformed(source, `payload ${p} has no "data" list`)
    for (const item of data as JsonObject[]) {
      if (item?.object !== 'trace.span') continue
      spans.push(spanOf(item, source))
    }
  })
  return spans
}

function spanOf(item: JsonObject, source: string): OtlpSpan {
  const traceId = idOf(item.trace_id, 'trace_')
  const spanId = idOf(item.id, 'span_')
  if (!traceId || !spanId)
    throw malformed(source, `a span has no trace_id or id (${JSON.stringify(item.id)})`)
  const data = (item.span_data ?? {}) as JsonObject
  const error = item.error as { message?: JsonValue } | null | undefined
  return {
    traceId,
    spanId,
    parentSpanId: idOf(item.parent_id, 'span_') ?? null,
    name: [data.type, data.name].filter((x) => typeof x === 'string').join(' ') || 'span',
    startTimeUnixNano: nanosOf(item.started_at),
    endTimeUnixNano: nanosOf(item.ended_at ?? item.started_at),
    attributes: { [AGENTS_SPAN_DATA]: data },
    events: [],
    status: error ? { code: 2, message: String(error.message ?? 'failed') } : { code: 0, message: '' },
    resource: {},
    scope: { name: 'openai-agents', version: '' },
  }
}

function idOf(value: JsonValue | undefined, prefix: string): string | undefined {
  return typeof value === 'string' && value !== '' ? value.replace(prefix, '') : undefined
}

function nanosOf(value: JsonValue | undefined): bigint {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN
  return Number.isNaN(ms) ? 0n : BigInt(ms) * 1_000_000n
}

function malformed(source: string, why: string): CrashlabError {
  return new CrashlabError(
    'E_OTLP_MALFORMED',
    `${source} is not an OpenAI Agents SDK trace payload: ${why}. It is what the SDK's OpenAITracingExporter ` +
      'posts: { "data": [{ "object": "trace", … }, { "object": "trace.span", … }] }.',
    { subject: source },
  )
}
