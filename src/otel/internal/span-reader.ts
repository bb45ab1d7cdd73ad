import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { OtlpSpan } from '../read-otlp.ts'

/**
 * Keys of earlier versions of the conventions, still written by instrumentations that have not moved
 * on. Reading one is recorded as `<key> (previous)`, so an import says which generation it saw.
 */
const PREVIOUS_KEYS = new Set([
  'gen_ai.system',
  'gen_ai.usage.prompt_tokens',
  'gen_ai.usage.completion_tokens',
  'gen_ai.prompt',
  'gen_ai.completion',
  'gen_ai.content.prompt',
  'gen_ai.content.completion',
  'gen_ai.system.message',
  'gen_ai.user.message',
  'gen_ai.assistant.message',
  'gen_ai.tool.message',
  'gen_ai.choice',
  'ai.usage.promptTokens',
  'ai.usage.completionTokens',
  'ai.settings.maxTokens',
])

/**
 * Reads a span's attributes and notes every key it found, so that the import can say which
 * conventions (and which of their versions) the trace followed.
 *
 * @example
 * const r = new SpanReader(span, found)
 * r.num('gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens') // the current name, else the previous one
 */
export class SpanReader {
  readonly span: OtlpSpan
  readonly found: Set<string>

  constructor(span: OtlpSpan, found: Set<string>) {
    this.span = span
    this.found = found
  }

  /** The value of the first of `keys` the span has, noting it as found. */
  get(...keys: string[]): JsonValue | undefined {
    for (const key of keys) {
      const value = this.span.attributes[key]
      if (value !== undefined && value !== null) {
        this.note(key)
        return value
      }
    }
    return undefined
  }

  str(...keys: string[]): string | undefined {
    const v = this.get(...keys)
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined
  }

  num(...keys: string[]): number | undefined {
    const v = this.get(...keys)
    const n = typeof v === 'string' ? Number(v) : v
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined
  }

  /** A value that conventions write as a JSON string (messages, arguments): parsed; else as it is. */
  json(...keys: string[]): JsonValue | undefined {
    const v = this.get(...keys)
    return typeof v === 'string' ? parseJson(v) : v
  }

  /** The span's attributes under `prefix.`, keyed by the rest (OpenInference's flattened lists). */
  under(prefix: string): JsonObject {
    const out: JsonObject = {}
    for (const [key, value] of Object.entries(this.span.attributes)) {
      if (key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] = value
    }
    if (Object.keys(out).length > 0) this.note(`${prefix}.*`)
    return out
  }

  /** Events named one of `names`, noting each name found. */
  events(...names: string[]): OtlpSpan['events'] {
    const hits = this.span.events.filter((e) => names.includes(e.name))
    for (const e of hits) this.note(`event ${e.name}`)
    return hits
  }

  note(key: string): void {
    const bare = key.replace(/^event /, '')
    this.found.add(PREVIOUS_KEYS.has(bare) ? `${key} (previous)` : key)
  }
}

/**
 * A string that holds JSON, parsed; the string itself when it is not JSON (a plain text argument).
 *
 * @example
 * parseJson('{"city":"Paris"}') // { city: 'Paris' }
 * parseJson('Paris') // 'Paris'
 */
export function parseJson(text: string): JsonValue {
  const t = text.trim()
  if (!/^[[{"]/.test(t) && !/^(-?\d|true$|false$|null$)/.test(t)) return text
  try {
    return JSON.parse(t) as JsonValue
  } catch {
    return text
  }
}
