import { compareCodePoints } from '../../../case/internal/canonical-json.ts'

/**
 * Compact canonical JSON of `value` (keys sorted by code point at every level): the same text as
 * `canonicalStringify(value)`, made for the detectors' keys, which make one per tool call. It keeps no
 * per-call state (no set of visited objects, no caches, no closures): the only allocations are the text
 * itself and each object's key list. Throws a TypeError where `canonicalStringify` does (NaN, Infinity,
 * bigint, functions, symbols, cycles); a cycle is looked for only below depth 32, where no real tool
 * call's arguments go.
 *
 * @example
 * canonicalText({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalText(value: unknown): string {
  return write(value, 0, undefined)
}

const DEEP = 32

function write(v: unknown, depth: number, path: object[] | undefined): string {
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
      const text = Array.isArray(v)
        ? writeArray(v, depth, path)
        : writeObject(v as Record<string, unknown>, depth, path)
      if (depth >= DEEP) path!.pop()
      return text
    }
    default:
      throw new TypeError(`canonical JSON cannot carry a ${typeof v}`)
  }
}

function writeArray(arr: readonly unknown[], depth: number, path: object[] | undefined): string {
  if (arr.length === 0) return '[]'
  let out = '['
  for (let i = 0; i < arr.length; i++) {
    if (i > 0) out += ','
    const item = arr[i]
    out += item === undefined ? 'null' : write(item, depth + 1, path)
  }
  return `${out}]`
}

function writeObject(obj: Record<string, unknown>, depth: number, path: object[] | undefined): string {
  const keys = Object.keys(obj)
  if (keys.length === 0) return '{}'
  if (keys.length > 1) sortKeys(keys)
  let out = '{'
  let first = true
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!
    const item = obj[key]
    if (item === undefined) continue
    out += `${first ? '' : ','}${JSON.stringify(key)}:${write(item, depth + 1, path)}`
    first = false
  }
  return first ? '{}' : `${out}}`
}

/** In code point order: the default sort agrees unless a key holds a surrogate. */
function sortKeys(keys: string[]): void {
  keys.sort()
  for (const k of keys) {
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i)
      if (c >= 0xd800 && c <= 0xdfff) {
        keys.sort(compareCodePoints)
        return
      }
    }
  }
}
