/**
 * Canonical JSON: keys sorted by Unicode code point at every level, so that the same data always gives
 * the same bytes (a re-recorded cassette reads as a small diff in review) and AgentCase files
 * re-serialize byte-identically. Numbers are written as JavaScript writes them (`1.0` becomes `1`).
 */

/**
 * Compares two strings by Unicode code point. JavaScript's default `<` compares UTF-16 code units,
 * which puts astral characters (surrogate pairs) before U+E000–U+FFFF; code point order puts them after.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000
      }
      return x - y
    }
  }
  return a.length - b.length
}

export interface CanonicalOptions {
  /** Spaces per level; 0 writes the compact form (`,` and `:` with no spaces). */
  indent?: number
}

/**
 * Serializes `value` canonically. Throws a TypeError on values JSON cannot carry (NaN, Infinity,
 * bigint, functions, symbols, cycles) instead of silently writing `null`.
 *
 * @example
 * canonicalStringify({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 * canonicalStringify({ b: 1, a: 2 }, { indent: 2 }) // '{\n  "a": 2,\n  "b": 1\n}'
 */
export function canonicalStringify(value: unknown, options: CanonicalOptions = {}): string {
  const indent = options.indent ?? 0
  if (indent === 0) {
    // The compact form, the one hashed and compared, goes through a writer with no per-call state; a
    // value it refuses is written again below, which names where the bad value sits.
    try {
      return compact(value, 0, undefined)
    } catch (error) {
      if (!(error instanceof TypeError)) throw error
    }
  }
  return withPaths(value, indent)
}

/** The writer that keeps the path of the value being written, for error messages; any indent. */
function withPaths(value: unknown, indent: number): string {
  const seen = new Set<object>()
  // One string built by `+=`: V8 joins it as a rope, which beats collecting parts in an array here.
  const pads = ['\n']
  const padAt = (depth: number): string => {
    while (pads.length <= depth) pads.push(`\n${' '.repeat(indent * pads.length)}`)
    return pads[depth]!
  }
  const colon = indent ? ': ' : ':'
  // Keys repeat across a document (every step has `type`, `timing`, ...): quote each once.
  const quoted = new Map<string, string>()
  const quote = (key: string): string => {
    let q = quoted.get(key)
    if (q === undefined) {
      q = JSON.stringify(key) + colon
      quoted.set(key, q)
    }
    return q
  }
  // The path of the value being written, kept as a stack and rendered only for an error message.
  const trail: (string | number)[] = []
  const at = () => `$${trail.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`
  return write(value, 0)

  function write(v: unknown, depth: number): string {
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v)
      case 'boolean':
        return v ? 'true' : 'false'
      case 'number':
        if (!Number.isFinite(v)) throw new TypeError(`canonical JSON cannot carry ${v} (at ${at()})`)
        return Object.is(v, -0) ? '0' : String(v)
      case 'object': {
        if (v === null) return 'null'
        if (seen.has(v)) throw new TypeError(`canonical JSON cannot carry a cycle (at ${at()})`)
        seen.add(v)
        const text = Array.isArray(v)
          ? writeArray(v, depth)
          : writeObject(v as Record<string, unknown>, depth)
        seen.delete(v)
        return text
      }
      default:
        throw new TypeError(`canonical JSON cannot carry a ${typeof v} (at ${at()})`)
    }
  }

  function writeArray(arr: readonly unknown[], depth: number): string {
    if (arr.length === 0) return '[]'
    const inner = indent ? padAt(depth + 1) : ''
    let out = '['
    for (let i = 0; i < arr.length; i++) {
      if (i > 0) out += ','
      const item = arr[i]
      // JSON.stringify writes holes and undefined in arrays as null; so do we.
      trail.push(i)
      out += inner + (item === undefined ? 'null' : write(item, depth + 1))
      trail.pop()
    }
    return `${out + (indent ? padAt(depth) : '')}]`
  }

  function writeObject(obj: Record<string, unknown>, depth: number): string {
    const keys = sortedKeys(obj)
    if (keys.length === 0) return '{}'
    const inner = indent ? padAt(depth + 1) : ''
    let out = '{'
    let first = true
    for (const key of keys) {
      const item = obj[key]
      if (item === undefined) continue
      trail.push(key)
      out += `${first ? '' : ','}${inner}${quote(key)}${write(item, depth + 1)}`
      trail.pop()
      first = false
    }
    if (first) return '{}'
    return `${out + (indent ? padAt(depth) : '')}}`
  }
}

/**
 * The keys in code point order. The default sort (UTF-16 code units) agrees with it unless a key holds
 * a surrogate, so the slower comparator runs only then.
 */
function sortedKeys(obj: Record<string, unknown>): string[] {
  return sortedKeysOf(Object.keys(obj))
}

function sortedKeysOf(keys: string[]): string[] {
  keys.sort()
  for (const k of keys) {
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i)
      if (c >= 0xd800 && c <= 0xdfff) return keys.sort(compareCodePoints)
    }
  }
  return keys
}

/** Below this depth the compact writer does not look for cycles (a cycle recurses past it anyway). */
const DEEP = 32

/**
 * The compact canonical writer: no set of visited objects, no caches, no closures, so a short value
 * (a tool call's arguments, hashed once per step) costs only its text and each object's key list.
 */
function compact(v: unknown, depth: number, path: object[] | undefined): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(v)) throw new TypeError(`canonical JSON cannot carry ${v}`)
      return Object.is(v, -0) ? '0' : String(v)
    case 'object': {
      if (v === null) return 'null'
      if (depth >= DEEP) {
        path ??= []
        if (path.includes(v)) throw new TypeError('canonical JSON cannot carry a cycle')
        path.push(v)
      }
      let out: string
      if (Array.isArray(v)) {
        out = '['
        for (let i = 0; i < v.length; i++) {
          const item: unknown = v[i]
          out += `${i > 0 ? ',' : ''}${item === undefined ? 'null' : compact(item, depth + 1, path)}`
        }
        out += ']'
      } else {
        const obj = v as Record<string, unknown>
        const keys = Object.keys(obj)
        const sorted = keys.length > 1 ? sortedKeysOf(keys) : keys
        out = '{'
        let first = true
        for (const key of sorted) {
          const item = obj[key]
          if (item === undefined) continue
          out += `${first ? '' : ','}${JSON.stringify(key)}:${compact(item, depth + 1, path)}`
          first = false
        }
        out += '}'
      }
      if (depth >= DEEP) path!.pop()
      return out
    }
    default:
      throw new TypeError(`canonical JSON cannot carry a ${typeof v}`)
  }
}
