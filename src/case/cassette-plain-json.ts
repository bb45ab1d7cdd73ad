import type { ValidationIssue } from '../errors.ts'
import { jsonPath } from './validation-issues.ts'

/** What `toPlainJson` returns: a detached, JSON-exact copy, or the reasons there is none. */
export interface PlainJsonResult {
  value: unknown
  issues: ValidationIssue[]
}

/**
 * Copies `value` into plain JSON data and reports everything JSON cannot carry faithfully.
 *
 * The schema checks free-JSON fields (tool args and results, wire bodies, metadata) only for presence,
 * so that loading does not walk megabytes twice; on the write side this walk is what makes sure they
 * really are JSON. It refuses rather than converts whatever `JSON.stringify` would silently change:
 * a `Date` (which would become a string), a `Map` or class instance (`{}`), `NaN` and `Infinity`
 * (`null`), `undefined` in an array (`null`), functions and symbols (dropped), bigints and cycles (throw).
 * Two things are normalized because they cannot be told apart after a round trip anyway: an `undefined`
 * property is dropped, and `-0` becomes `0`.
 *
 * The copy also detaches the result from the caller's objects, so a writer never mutates, or later
 * shares, the caller's run.
 *
 * @example
 * toPlainJson({ at: new Date(0) }).issues[0].path // '$.at'
 */
export function toPlainJson(value: unknown, base: readonly PropertyKey[] = []): PlainJsonResult {
  const issues: ValidationIssue[] = []
  const segments: PropertyKey[] = [...base]
  const ancestors = new Set<object>()
  let copied: unknown
  try {
    copied = copy(value)
  } catch (err) {
    if (!(err instanceof RangeError)) throw err
    // The stack unwound without popping: show where the descent started, not ten thousand segments.
    const deep = segments.length > base.length + 8
    issues.push({
      code: 'too_deep',
      path: jsonPath(segments.slice(0, base.length + 8)) + (deep ? '…' : ''),
      message: 'nested too deeply to write (the call stack ran out)',
    })
  }
  return { value: copied, issues }

  function issue(message: string): undefined {
    issues.push({ code: 'not_json', path: jsonPath(segments), message })
    return undefined
  }

  function copy(v: unknown): unknown {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v
      case 'number':
        if (!Number.isFinite(v)) return issue(`${v} is not a JSON number`)
        return v === 0 ? 0 : v
      case 'object':
        return v === null ? null : copyObject(v)
      case 'undefined':
        return issue('undefined is not a JSON value (JSON would write null or drop it)')
      default:
        return issue(`a ${typeof v} is not a JSON value`)
    }
  }

  function copyObject(v: object): unknown {
    if (ancestors.has(v)) return issue('a cycle: this object contains itself')
    if (Array.isArray(v)) {
      ancestors.add(v)
      const out: unknown[] = new Array(v.length)
      for (let i = 0; i < v.length; i++) {
        segments.push(i)
        out[i] = copy(v[i])
        segments.pop()
      }
      ancestors.delete(v)
      return out
    }
    const proto = Object.getPrototypeOf(v)
    if (proto !== Object.prototype && proto !== null) {
      if (v instanceof Date) return issue('a Date is not a JSON value: store date.toISOString()')
      const name = (proto as { constructor?: { name?: string } }).constructor?.name || 'non-plain'
      return issue(`a ${name} object is not a JSON value: store plain objects and arrays`)
    }
    ancestors.add(v)
    const out: Record<string, unknown> = {}
    const record = v as Record<string, unknown>
    for (const key of Object.keys(record)) {
      const item = record[key]
      if (item === undefined) continue
      segments.push(key)
      const c = copy(item)
      segments.pop()
      // A parsed document can hold an own `__proto__` key; plain assignment would set the prototype instead.
      if (key === '__proto__') {
        Object.defineProperty(out, key, { value: c, enumerable: true, writable: true, configurable: true })
      } else out[key] = c
    }
    ancestors.delete(v)
    return out
  }
}
