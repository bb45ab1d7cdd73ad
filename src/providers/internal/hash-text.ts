import type { JsonValue } from '../../case/schema/json.ts'
import type { Message, NormalizedRequest, Part, ToolDefinition } from '../../case/schema/normalized.ts'

/**
 * The text a request hash is taken over. It is on the path of every intercepted call, so it is built
 * for speed: the normalized request's known fields become arrays in a fixed order (their order is the
 * schema's, not the adapter's), and only free JSON (tool arguments and schemas, params) is key-sorted,
 * so that an SDK writing the same body with its keys in another order hashes the same. One
 * JSON.stringify of arrays is several times cheaper than a key-sorting serializer over everything.
 *
 * Every field of the normalized shapes must appear here: `hash-text.test.ts` changes each one and
 * checks that the hash moves.
 */
export function hashText(
  method: string,
  path: string,
  headers: readonly string[],
  n: NormalizedRequest,
  ignoreParams: readonly string[],
): string {
  return JSON.stringify([
    method,
    path,
    headers,
    n.model,
    n.system.map(part),
    n.messages.map(message),
    n.tools.map(tool),
    params(n.params, ignoreParams),
  ])
}

function message(m: Message): unknown[] {
  return [m.role, m.name ?? null, m.parts.map(part)]
}

function part(p: Part): unknown[] {
  switch (p.type) {
    case 'text':
      return ['text', p.text]
    case 'tool_call':
      return ['tool_call', p.id, p.name, sorted(p.args), p.argsText ?? null]
    case 'tool_result':
      return ['tool_result', p.id, p.name ?? null, p.content, p.isError]
    case 'media':
      return ['media', p.mediaType, p.bytes, p.ref ?? null, p.sha256 ?? null]
    case 'reasoning':
      return ['reasoning', p.text, p.opaque ?? false]
    default:
      return unreachable(p)
  }
}

function tool(t: ToolDefinition): unknown[] {
  return [t.name, t.description ?? null, sorted(t.parameters)]
}

function params(p: NormalizedRequest['params'], ignore: readonly string[]): unknown {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(p).sort()) {
    if (key === 'extra' || p[key as keyof typeof p] === undefined) continue
    out[key] = sorted(p[key as keyof typeof p] as JsonValue)
  }
  if (p.extra) {
    const extra: Record<string, unknown> = {}
    for (const key of Object.keys(p.extra).sort())
      if (!ignore.includes(key)) extra[key] = sorted(p.extra[key]!)
    out.extra = extra
  }
  return out
}

/** A copy with object keys in sorted order at every level (JSON.stringify keeps insertion order). */
function sorted(v: JsonValue | undefined): unknown {
  if (v === undefined || v === null || typeof v !== 'object') return v ?? null
  if (Array.isArray(v)) return v.map(sorted)
  const keys = Object.keys(v)
  if (keys.length > 1) keys.sort()
  const out: Record<string, unknown> = {}
  for (const k of keys) out[k] = sorted(v[k])
  return out
}

function unreachable(p: never): never {
  throw new Error(`[crashlab] request hash: unknown part ${JSON.stringify(p)}`)
}
