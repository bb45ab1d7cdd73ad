import type { JsonObject, JsonValue } from '../../case/schema/json.ts'

/**
 * OTLP JSON's `AnyValue`: one of `stringValue`, `boolValue`, `intValue` (a string, since an int64 does
 * not fit a JSON number), `doubleValue`, `arrayValue: { values }`, `kvlistValue: { values }` or
 * `bytesValue` (base64). Returns undefined for anything else, so the caller can name the bad key.
 *
 * @example
 * anyValue({ intValue: '42' }) // 42
 * anyValue({ arrayValue: { values: [{ stringValue: 'stop' }] } }) // ['stop']
 */
export function anyValue(v: unknown): JsonValue | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined
  const o = v as Record<string, unknown>
  if (typeof o.stringValue === 'string') return o.stringValue
  if (typeof o.boolValue === 'boolean') return o.boolValue
  if ('intValue' in o) return intOf(o.intValue)
  if ('doubleValue' in o) return doubleOf(o.doubleValue)
  if (typeof o.bytesValue === 'string') return o.bytesValue
  if ('arrayValue' in o) {
    const values = (o.arrayValue as { values?: unknown } | null)?.values ?? []
    if (!Array.isArray(values)) return undefined
    const out: JsonValue[] = []
    for (const item of values) {
      const value = anyValue(item)
      if (value === undefined) return undefined
      out.push(value)
    }
    return out
  }
  if ('kvlistValue' in o) {
    const values = (o.kvlistValue as { values?: unknown } | null)?.values ?? []
    return Array.isArray(values) ? keyValues(values) : undefined
  }
  // An empty AnyValue (`{}`) is how OTLP writes an unset value.
  return Object.keys(o).length === 0 ? null : undefined
}

/**
 * A list of OTLP `KeyValue`s as one object; undefined when an entry is not a `{ key, value }`.
 *
 * @example
 * keyValues([{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }]) // { 'gen_ai.request.model': 'gpt-4o' }
 */
export function keyValues(list: readonly unknown[]): JsonObject | undefined {
  const out: JsonObject = {}
  for (const kv of list) {
    if (kv === null || typeof kv !== 'object') return undefined
    const { key, value } = kv as { key?: unknown; value?: unknown }
    if (typeof key !== 'string') return undefined
    const decoded = value === undefined ? null : anyValue(value)
    if (decoded === undefined) return undefined
    out[key] = decoded
  }
  return out
}

function intOf(v: unknown): number | string | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) return undefined
  const n = Number(v)
  // An int64 beyond 2^53 keeps its digits rather than lose precision.
  return Number.isSafeInteger(n) ? n : v
}

function doubleOf(v: unknown): number | string | undefined {
  if (typeof v === 'number') return v
  // The JSON mapping of protobuf writes NaN and the infinities as strings; JSON cannot hold them as numbers.
  if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return v
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v)
  return undefined
}

/** OTLP JSON's `AnyValue`, as written. */
export type OtlpAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: OtlpAnyValue[] } }
  | { kvlistValue: { values: OtlpKeyValue[] } }
  | Record<string, never>

/** One OTLP JSON attribute. */
export interface OtlpKeyValue {
  key: string
  value: OtlpAnyValue
}

/**
 * A JSON value as OTLP JSON's `AnyValue`, the inverse of `anyValue`: a whole number is an `intValue`
 * (a string, as int64 is written), another number a `doubleValue`, null the empty value.
 *
 * @example
 * toAnyValue(['stop']) // { arrayValue: { values: [{ stringValue: 'stop' }] } }
 * toAnyValue(42) // { intValue: '42' }
 */
export function toAnyValue(v: JsonValue): OtlpAnyValue {
  if (v === null) return {}
  if (typeof v === 'string') return { stringValue: v }
  if (typeof v === 'boolean') return { boolValue: v }
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { intValue: String(v) } : { doubleValue: v }
  if (Array.isArray(v)) return { arrayValue: { values: v.map(toAnyValue) } }
  return { kvlistValue: { values: toKeyValues(v) } }
}

/**
 * An object as a list of OTLP `KeyValue`s, the inverse of `keyValues`; undefined entries are left out.
 *
 * @example
 * toKeyValues({ 'gen_ai.request.model': 'gpt-4o' }) // [{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }]
 */
export function toKeyValues(o: { readonly [key: string]: JsonValue | undefined }): OtlpKeyValue[] {
  const out: OtlpKeyValue[] = []
  for (const [key, value] of Object.entries(o))
    if (value !== undefined) out.push({ key, value: toAnyValue(value) })
  return out
}
