import type { JsonValue } from '../../case/schema/json.ts'
import { jsonPath } from '../../case/validation-issues.ts'

/**
 * Capture copies what the application hands it into plain JSON at the moment of the call: the record
 * must not change when the application later mutates its own objects, and a value JSON cannot carry (a
 * function, a bigint, NaN, a cycle) must not make the capture throw into the application. Such a value
 * is left out and its location reported, so the case can say honestly that it is degraded.
 *
 * This is deliberately not the engine's `toJsonValue` (a run's input and output, as `record`, the
 * fixtures and the harness store them), which turns what JSON cannot carry into `null` or a string as
 * `JSON.stringify` does, silently: an AgentCase must list what it lost, and a recorded run must not
 * change shape. One rule per purpose, each with one owner.
 */

/** Deeper than this, the AgentCase reader refuses the file; the capture drops the subtree instead. */
const MAX_DEPTH = 900

/**
 * What `copyJson` returns: the JSON copy (undefined when the value itself cannot be carried) and the
 * `$`-paths, relative to the value, of everything that was left out.
 *
 * @example
 * const { value, dropped } = copyJson({ a: 1, f: () => 0 }) // value { a: 1 }, dropped ['$.f']
 */
export interface JsonCopy {
  value: JsonValue | undefined
  dropped: string[]
}

/**
 * A JSON copy of `input`, as `JSON.stringify` would see it (`toJSON` is honoured, `undefined` object
 * members are skipped), except that what JSON cannot carry is listed instead of silently becoming
 * `null` or `{}`.
 *
 * @example
 * copyJson({ when: new Date(0), n: Number.NaN }) // { value: { when: '1970-01-01T00:00:00.000Z' }, dropped: ['$.n'] }
 */
export function copyJson(input: unknown): JsonCopy {
  const dropped: string[] = []
  const seen = new Set<object>()

  const walk = (v: unknown, path: PropertyKey[], depth: number): JsonValue | undefined => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
    if (typeof v === 'number') {
      if (Number.isFinite(v)) return v
      dropped.push(jsonPath(path))
      return undefined
    }
    if (typeof v !== 'object') {
      // undefined is JSON's "absent"; a function, symbol or bigint is a value JSON has no word for.
      if (v !== undefined) dropped.push(jsonPath(path))
      return undefined
    }
    if (depth > MAX_DEPTH || seen.has(v) || v instanceof Map || v instanceof Set) {
      dropped.push(jsonPath(path))
      return undefined
    }
    seen.add(v)
    try {
      // A getter or toJSON of the application's object may throw: that value is lost, the capture goes on.
      const toJSON = (v as { toJSON?: unknown }).toJSON
      if (typeof toJSON === 'function') return walk(toJSON.call(v), path, depth + 1)
      if (Array.isArray(v)) {
        // An array keeps its length, so a value left out stays visible as null, as JSON.stringify writes it.
        return v.map((item, i) => walk(item, [...path, i], depth + 1) ?? null)
      }
      const out: Record<string, JsonValue> = {}
      for (const key of Object.keys(v)) {
        const copy = walk((v as Record<string, unknown>)[key], [...path, key], depth + 1)
        if (copy !== undefined) out[key] = copy
      }
      return out
    } catch {
      dropped.push(jsonPath(path))
      return undefined
    } finally {
      seen.delete(v)
    }
  }

  return { value: walk(input, [], 0), dropped }
}
