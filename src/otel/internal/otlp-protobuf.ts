import type { JsonObject, JsonValue } from '../../case/schema/json.ts'

/**
 * OTLP's protobuf encoding of an `ExportTraceServiceRequest` (what an exporter sends with
 * `Content-Type: application/x-protobuf`), decoded into the shape of its OTLP JSON encoding (hex ids,
 * nanoseconds as strings, `AnyValue` objects), so that `readOtlp` reads both. Only the fields a span
 * read needs are kept (opentelemetry-proto's `trace.proto`, `common.proto`, `resource.proto`); the
 * others (links, trace state, flags, dropped counts, schema URLs) are skipped. Throws an `Error` naming
 * what is wrong; the caller turns it into its own.
 *
 * @example
 * readOtlp(JSON.stringify(decodeTraceRequest(body)), 'the request')
 */
export function decodeTraceRequest(bytes: Uint8Array): JsonObject {
  const resourceSpans: JsonValue[] = []
  for (const f of fields(bytes)) if (f.n === 1) resourceSpans.push(resourceSpansOf(message(f)))
  return { resourceSpans }
}

/** One field as it is on the wire: a varint, 8 or 4 fixed bytes, or a length-delimited run of bytes. */
type Field =
  | { n: number; wire: 0; value: bigint }
  | { n: number; wire: 1 | 5; bytes: Uint8Array }
  | { n: number; wire: 2; bytes: Uint8Array }

function* fields(buf: Uint8Array): Generator<Field> {
  let pos = 0
  const varint = (): bigint => {
    let value = 0n
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (pos >= buf.length) throw new Error('a varint runs past the end of the message')
      const byte = buf[pos++] as number
      value |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return value
    }
    throw new Error('a varint is longer than 10 bytes')
  }
  const take = (length: number): Uint8Array => {
    if (pos + length > buf.length) throw new Error('a field runs past the end of the message')
    const bytes = buf.subarray(pos, pos + length)
    pos += length
    return bytes
  }
  while (pos < buf.length) {
    const tag = Number(varint())
    const n = tag >>> 3
    const wire = tag & 7
    if (n === 0) throw new Error('a field numbered 0')
    if (wire === 0) yield { n, wire, value: varint() }
    else if (wire === 1) yield { n, wire, bytes: take(8) }
    else if (wire === 5) yield { n, wire, bytes: take(4) }
    else if (wire === 2) yield { n, wire, bytes: take(Number(varint())) }
    else throw new Error(`field ${n} has wire type ${wire}, which OTLP does not use`)
  }
}

function message(f: Field): Uint8Array {
  if (f.wire !== 2) throw new Error(`field ${f.n} should be length-delimited`)
  return f.bytes
}

function text(f: Field): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(message(f))
}

function hex(f: Field): string {
  return Buffer.from(message(f)).toString('hex')
}

function fixed64(f: Field): bigint {
  if (f.wire !== 1) throw new Error(`field ${f.n} should be a fixed64`)
  return new DataView(f.bytes.buffer, f.bytes.byteOffset, 8).getBigUint64(0, true)
}

function varintOf(f: Field): bigint {
  if (f.wire !== 0) throw new Error(`field ${f.n} should be a varint`)
  return f.value
}

function resourceSpansOf(bytes: Uint8Array): JsonObject {
  let attributes: JsonValue[] = []
  const scopeSpans: JsonValue[] = []
  for (const f of fields(bytes)) {
    // Resource { 1 attributes }; ScopeSpans.
    if (f.n === 1) attributes = [...fields(message(f))].filter((a) => a.n === 1).map(keyValueOf)
    else if (f.n === 2) scopeSpans.push(scopeSpansOf(message(f)))
  }
  return { resource: { attributes }, scopeSpans }
}

function scopeSpansOf(bytes: Uint8Array): JsonObject {
  const scope: JsonObject = {}
  const spans: JsonValue[] = []
  for (const f of fields(bytes)) {
    if (f.n === 1) {
      // InstrumentationScope { 1 name, 2 version }
      for (const s of fields(message(f))) {
        if (s.n === 1) scope.name = text(s)
        else if (s.n === 2) scope.version = text(s)
      }
    } else if (f.n === 2) spans.push(spanOf(message(f)))
  }
  return { scope, spans }
}

function spanOf(bytes: Uint8Array): JsonObject {
  const span: JsonObject = {}
  const attributes: JsonValue[] = []
  const events: JsonValue[] = []
  for (const f of fields(bytes)) {
    if (f.n === 1) span.traceId = hex(f)
    else if (f.n === 2) span.spanId = hex(f)
    else if (f.n === 4 && message(f).length > 0) span.parentSpanId = hex(f)
    else if (f.n === 5) span.name = text(f)
    else if (f.n === 6) span.kind = Number(varintOf(f))
    else if (f.n === 7) span.startTimeUnixNano = String(fixed64(f))
    else if (f.n === 8) span.endTimeUnixNano = String(fixed64(f))
    else if (f.n === 9) attributes.push(keyValueOf(f))
    else if (f.n === 11) events.push(eventOf(message(f)))
    else if (f.n === 15) span.status = statusOf(message(f))
  }
  return { ...span, attributes, events }
}

function eventOf(bytes: Uint8Array): JsonObject {
  const event: JsonObject = {}
  const attributes: JsonValue[] = []
  for (const f of fields(bytes)) {
    if (f.n === 1) event.timeUnixNano = String(fixed64(f))
    else if (f.n === 2) event.name = text(f)
    else if (f.n === 3) attributes.push(keyValueOf(f))
  }
  return { ...event, attributes }
}

function statusOf(bytes: Uint8Array): JsonObject {
  const status: JsonObject = { code: 0 }
  for (const f of fields(bytes)) {
    if (f.n === 2) status.message = text(f)
    else if (f.n === 3) status.code = Number(varintOf(f))
  }
  return status
}

/** KeyValue { 1 key, 2 value }. */
function keyValueOf(f: Field): JsonObject {
  let key = ''
  let value: JsonObject = {}
  for (const kv of fields(message(f))) {
    if (kv.n === 1) key = text(kv)
    else if (kv.n === 2) value = anyValueOf(message(kv))
  }
  return { key, value }
}

/** AnyValue { 1 string, 2 bool, 3 int64, 4 double, 5 ArrayValue, 6 KeyValueList, 7 bytes }. */
function anyValueOf(bytes: Uint8Array): JsonObject {
  for (const f of fields(bytes)) {
    switch (f.n) {
      case 1:
        return { stringValue: text(f) }
      case 2:
        return { boolValue: varintOf(f) !== 0n }
      case 3:
        return { intValue: String(BigInt.asIntN(64, varintOf(f))) }
      case 4: {
        if (f.wire !== 1) throw new Error('a double should be a fixed64')
        const d = new DataView(f.bytes.buffer, f.bytes.byteOffset, 8).getFloat64(0, true)
        // OTLP JSON writes the doubles JSON has no number for as strings.
        return { doubleValue: Number.isFinite(d) ? d : String(d) }
      }
      case 5:
        return { arrayValue: { values: listOf(message(f)).map((v) => anyValueOf(message(v))) } }
      case 6:
        return { kvlistValue: { values: listOf(message(f)).map(keyValueOf) } }
      case 7:
        return { bytesValue: Buffer.from(message(f)).toString('base64') }
    }
  }
  return {}
}

/** The repeated field 1 of ArrayValue and KeyValueList. */
function listOf(bytes: Uint8Array): Field[] {
  return [...fields(bytes)].filter((f) => f.n === 1)
}
