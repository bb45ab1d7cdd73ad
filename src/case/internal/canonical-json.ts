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
  const seen = new Set<object>()
  const out: string[] = []
  write(value, '', '$')
  return out.join('')

  function write(v: unknown, pad: string, path: string): void {
    switch (typeof v) {
      case 'string':
        out.push(JSON.stringify(v))
        return
      case 'boolean':
        out.push(v ? 'true' : 'false')
        return
      case 'number':
        if (!Number.isFinite(v)) throw new TypeError(`canonical JSON cannot carry ${v} (at ${path})`)
        out.push(Object.is(v, -0) ? '0' : String(v))
        return
      case 'object':
        if (v === null) {
          out.push('null')
          return
        }
        if (seen.has(v)) throw new TypeError(`canonical JSON cannot carry a cycle (at ${path})`)
        seen.add(v)
        if (Array.isArray(v)) writeArray(v, pad, path)
        else writeObject(v as Record<string, unknown>, pad, path)
        seen.delete(v)
        return
      default:
        throw new TypeError(`canonical JSON cannot carry a ${typeof v} (at ${path})`)
    }
  }

  function writeArray(arr: readonly unknown[], pad: string, path: string): void {
    if (arr.length === 0) {
      out.push('[]')
      return
    }
    const inner = indent ? pad + ' '.repeat(indent) : ''
    out.push('[')
    for (let i = 0; i < arr.length; i++) {
      if (i > 0) out.push(',')
      if (indent) out.push('\n', inner)
      const item = arr[i]
      // JSON.stringify writes holes and undefined in arrays as null; so do we.
      if (item === undefined) out.push('null')
      else write(item, inner, `${path}[${i}]`)
    }
    if (indent) out.push('\n', pad)
    out.push(']')
  }

  function writeObject(obj: Record<string, unknown>, pad: string, path: string): void {
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort(compareCodePoints)
    if (keys.length === 0) {
      out.push('{}')
      return
    }
    const inner = indent ? pad + ' '.repeat(indent) : ''
    out.push('{')
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      if (i > 0) out.push(',')
      if (indent) out.push('\n', inner)
      out.push(JSON.stringify(key), indent ? ': ' : ':')
      write(obj[key], inner, `${path}.${key}`)
    }
    if (indent) out.push('\n', pad)
    out.push('}')
  }
}
