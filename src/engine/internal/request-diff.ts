import type { JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { showChange, WHOLE } from '../../case/show-change.ts'

/**
 * A small field-level diff of two requests, for divergence messages: which message, which part, which
 * tool or parameter changed, and how. Deliberately simple (the layered diff lives in src/diff/): paths
 * into the normalized request, arrays compared by position, tools by name.
 */

/**
 * One changed field. `recorded` or `actual` is undefined when the field exists on one side only.
 *
 * @example
 * const d: RequestDifference = { path: 'params.temperature', what: 'param temperature', recorded: 0, actual: 0.5 }
 */
export interface RequestDifference {
  /** A path into the normalized request, e.g. `messages[2].parts[0].text` or `tools.get_order.parameters`. */
  path: string
  /** The same place in words: `message 2 (user), part 0 (text): text`. */
  what: string
  recorded: JsonValue | undefined
  actual: JsonValue | undefined
}

/**
 * The fields in which `actual` differs from `recorded`, in document order.
 *
 * @example
 * diffRequests(recorded, actual)[0] // { path: 'messages[0].parts[0].text', what: 'message 0 (user), part 0 (text): text', … }
 */
export function diffRequests(recorded: unknown, actual: unknown): RequestDifference[] {
  const out: RequestDifference[] = []
  walk(keyTools(recorded), keyTools(actual), '', out)
  const context = (actual ?? recorded) as Partial<NormalizedRequest> | null
  const fallback = recorded as Partial<NormalizedRequest> | null
  for (const d of out) d.what = describe(d.path, context, fallback)
  return out
}

/** Tools compared by name, so that adding one tool is one difference, not a shift of every later one. */
function keyTools(value: unknown): unknown {
  if (!isObject(value) || !Array.isArray(value.tools)) return value
  const tools: Record<string, unknown> = {}
  for (const tool of value.tools as Array<{ name?: unknown }>) tools[String(tool?.name)] = tool
  return { ...value, tools }
}

function walk(a: unknown, b: unknown, path: string, out: RequestDifference[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      walk(i < a.length ? a[i] : undefined, i < b.length ? b[i] : undefined, `${path}[${i}]`, out)
    }
    return
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    for (const key of keys) walk(a[key], b[key], path ? `${path}.${key}` : key, out)
    return
  }
  if (!sameJson(a, b)) {
    out.push({ path, what: path, recorded: a as JsonValue | undefined, actual: b as JsonValue | undefined })
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Turns a path into words, naming the message's role and the part's type from the request. */
function describe(
  path: string,
  request: Partial<NormalizedRequest> | null,
  fallback: Partial<NormalizedRequest> | null,
): string {
  const message = /^messages\[(\d+)\](?:\.parts\[(\d+)\])?\.?(.*)$/.exec(path)
  if (message) {
    const i = Number(message[1])
    const msg = request?.messages?.[i] ?? fallback?.messages?.[i]
    let text = `message ${i}${msg ? ` (${msg.role})` : ''}`
    if (message[2] !== undefined) {
      const j = Number(message[2])
      const part = msg?.parts?.[j] ?? fallback?.messages?.[i]?.parts?.[j]
      text += `, part ${j}${part ? ` (${part.type})` : ''}`
    }
    return message[3] ? `${text}: ${message[3]}` : text
  }
  const tool = /^tools\.([^.]+)\.?(.*)$/.exec(path)
  if (tool) return `tool "${tool[1]}"${tool[2] ? `: ${tool[2]}` : ''}`
  const system = /^system\[(\d+)\]\.?(.*)$/.exec(path)
  if (system) return `system prompt part ${system[1]}${system[2] ? `: ${system[2]}` : ''}`
  const param = /^params\.(?:extra\.)?(.+)$/.exec(path)
  if (param) return `param ${param[1]}`
  return describeHttp(path)
}

/** The fields of a call that is not a model call (`HttpShape`), in words. */
function describeHttp(path: string): string {
  const query = /^query\.(.+)$/.exec(path)
  if (query) return `query parameter ${query[1]}`
  if (/^body[.[]./.test(path)) return `body field ${path.slice(path[4] === '.' ? 5 : 4)}`
  if (path === 'bodyText') return 'body text'
  if (path === 'bodyFile' || path.startsWith('bodyFile.'))
    return `binary body${path === 'bodyFile' ? '' : ` ${path === 'bodyFile.bytes' ? 'size' : 'sha256'}`}`
  return path
}

/**
 * One difference as a line: where, then recorded → actual. A value that fits is shown whole; a long one
 * is shown as a window around the first character where the two sides part, with that offset, so that a
 * change at the end of a long prompt or deep inside a JSON body is visible (a shared prefix would hide
 * it). Every line stays bounded, whatever the size of the values.
 *
 * @example
 * formatDifference({ path: 'params.temperature', what: 'param temperature', recorded: 0, actual: 0.5 })
 * // 'param temperature: 0 → 0.5'
 */
export function formatDifference(d: RequestDifference): string {
  if (d.recorded === undefined) return `${d.what}: added ${show(d.actual)}`
  if (d.actual === undefined) return `${d.what}: removed (was ${show(d.recorded)})`
  return `${d.what}: ${showChange(d.recorded, d.actual)}`
}

function show(value: JsonValue | undefined): string {
  const text = JSON.stringify(value) ?? 'undefined'
  return text.length > WHOLE ? `${text.slice(0, WHOLE - 3)}…` : text
}

export { showChange }
