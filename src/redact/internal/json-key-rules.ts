import type { CompiledRule } from './rule-set.ts'
import { SENSITIVE_MARKER, SENSITIVE_RULE } from './sensitive-keys.ts'

/**
 * Sensitive keys inside JSON that is text: a wire `bodyText`, an SSE chunk's `data`, a tool result that
 * returned a JSON string. The document walk cannot see those keys, so this rule finds `"key": "value"`
 * pairs in the text and replaces the value when the key is sensitive. Working on the text (instead of
 * parsing and re-serializing) keeps every other byte of the body as it was recorded.
 *
 * Two forms: plain JSON text, and JSON text escaped once more (`\"key\":\"value\"`), as it appears when
 * a JSON string holds a JSON document. It walks `":` with `indexOf` and looks a key up only there: SSE
 * chunks are JSON, and a regex over every pair of every chunk cost more than all the patterns together.
 */

/**
 * OpenAI logprobs carry `{"token": "Hello", "logprob": -0.3}`: a tokenizer token, not a credential.
 * The document walk sees the sibling key; in text, the sibling follows within a few characters.
 */
export function isLogprobToken(key: string, text: string, end: number): boolean {
  return key.toLowerCase() === 'token' && /"?logprob/.test(text.slice(end, end + 48))
}

/** The end (exclusive) of the JSON string whose content starts at `from`, or -1. */
function stringEnd(text: string, from: number, escaped: boolean): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) return -1
    if (c !== 92) {
      if (c === 34 && !escaped) return i
      continue
    }
    // A backslash: in escaped JSON, `\"` closes the string and `\\\"` is a quote inside it.
    if (escaped && text.charCodeAt(i + 1) === 34) return i
    i += escaped ? 3 : 1
  }
  return -1
}

/** The name a `{"name": "X-Api-Key", "value": …}` entry gives its `value` (HAR, header dumps), or undefined. */
function entryName(text: string, keyOpen: number, valueEnd: number): string | undefined {
  // The rest of the enclosing object, without crossing into another object: a name before or after.
  const before = text.lastIndexOf('{', keyOpen)
  const closeAfter = text.indexOf('}', valueEnd)
  if (before === -1 || keyOpen - before > 400) return undefined
  const scope =
    text.slice(before + 1, keyOpen) + text.slice(valueEnd, closeAfter === -1 ? valueEnd + 400 : closeAfter)
  if (scope.includes('{')) return undefined
  const m = /"(?:name|key|header)"\s*:\s*"([^"\\]{1,100})"/.exec(scope)
  return m?.[1]
}

/** The end (exclusive) of the JSON number, object or array that starts at `from` in plain JSON, or -1. */
function valueEnd(text: string, from: number): number {
  const c = text[from]
  if (c === '{' || c === '[') {
    let depth = 0
    for (let i = from; i < text.length; i++) {
      const d = text[i]
      if (d === '"') {
        const close = stringEnd(text, i + 1, false)
        if (close === -1) return -1
        i = close
      } else if (d === '{' || d === '[') depth++
      else if (d === '}' || d === ']') {
        depth--
        if (depth === 0) return i + 1
      }
    }
    return -1
  }
  const m = /^-?\d[\d.eE+-]*/.exec(text.slice(from, from + 64))
  return m ? from + m[0].length : -1
}

/**
 * Every value range under a sensitive key, in plain or once-escaped JSON text: `[start, end, whole]`,
 * where `whole` marks a number (in plain JSON), replaced with its quotes-free range by `null`. String
 * values are the string's content. Besides `"key": value`, two shapes that name the key elsewhere:
 * `{"name": "Authorization", "value": "…"}` and the tuple `["authorization", "…"]`. Objects and arrays
 * under a sensitive key are left to their own leaves, which both this rule and the scanner look at
 * (a tool's JSON Schema under `"password"` is not a secret).
 */
export function findSensitiveJsonRanges(
  text: string,
  isSensitive: (key: string) => boolean,
): Array<[number, number, boolean]> {
  const out: Array<[number, number, boolean]> = []
  for (let i = text.indexOf('":'); i !== -1; i = text.indexOf('":', i + 2)) {
    const escaped = text.charCodeAt(i - 1) === 92
    const keyEnd = escaped ? i - 1 : i
    const open = text.lastIndexOf('"', keyEnd - 1)
    if (open === -1 || keyEnd - open > 101) continue
    const keyStart = open + 1
    if (escaped !== (text.charCodeAt(open - 1) === 92)) continue
    const key = text.slice(keyStart, keyEnd)
    let v = i + 2
    while (text[v] === ' ' || text[v] === '\t' || text[v] === '\n' || text[v] === '\r') v++
    const isString = escaped
      ? text.charCodeAt(v) === 92 && text.charCodeAt(v + 1) === 34
      : text.charCodeAt(v) === 34
    if (!isString) {
      if (escaped || !isSensitive(key)) continue
      const end = valueEnd(text, v)
      const first = text[v]
      if (end > v && first !== '{' && first !== '[') out.push([v, end, true])
      continue
    }
    v += escaped ? 2 : 1
    const end = stringEnd(text, v, escaped)
    if (end <= v) continue
    const sensitive =
      isSensitive(key) ||
      (!escaped && key.toLowerCase() === 'value' && isSensitiveName(entryName(text, open, end), isSensitive))
    if (!sensitive || isLogprobToken(key, text, end)) continue
    out.push([v, end, false])
  }
  findSensitiveTuples(text, isSensitive, out)
  return out
}

function isSensitiveName(name: string | undefined, isSensitive: (key: string) => boolean): boolean {
  return name !== undefined && isSensitive(name)
}

/** `["authorization", "Bearer …"]` (the shape of `Object.entries(headers)`) in plain JSON text. */
function findSensitiveTuples(
  text: string,
  isSensitive: (key: string) => boolean,
  out: Array<[number, number, boolean]>,
): void {
  const tuple = /\[\s*"([^"\\]{1,100})"\s*,\s*"/g
  for (let m = tuple.exec(text); m !== null; m = tuple.exec(text)) {
    if (!isSensitive(m[1]!)) continue
    const v = m.index + m[0].length
    const end = stringEnd(text, v, false)
    if (end <= v) continue
    if (!/^\s*\]/.test(text.slice(end + 1, end + 8))) continue
    if (!out.some(([s]) => s === v)) out.push([v, end, false])
  }
}

/**
 * The string-valued ranges of `findSensitiveJsonRanges`, as `[start, end)` pairs.
 *
 * @example
 * findSensitiveJsonValues('{"api_key":"k1"}', (k) => k === 'api_key') // [[12, 14]]
 */
export function findSensitiveJsonValues(
  text: string,
  isSensitive: (key: string) => boolean,
): Array<[number, number]> {
  return findSensitiveJsonRanges(text, isSensitive)
    .filter(([, , whole]) => !whole)
    .map(([s, e]) => [s, e])
}

/** What a number under a sensitive key in JSON text becomes: valid JSON at every level of escaping. */
export const SENSITIVE_NUMBER_MARKER = 'null'

/**
 * The text rule over a key test; it reports as `sensitive-key`, like the document walk.
 *
 * @example
 * const [rule] = jsonKeyRules((k) => k === 'apiKey')
 */
export function jsonKeyRules(isSensitive: (key: string) => boolean): CompiledRule[] {
  // Both rules read the same ranges; the string rule runs first on the same text, so remember its one.
  let lastText: string | undefined
  let lastRanges: Array<[number, number, boolean]> = []
  const ranges = (text: string): Array<[number, number, boolean]> => {
    if (text !== lastText) {
      lastRanges = findSensitiveJsonRanges(text, isSensitive)
      lastText = text
    }
    return lastRanges
  }
  const strings = (text: string): Array<[number, number]> =>
    ranges(text)
      .filter(([, , whole]) => !whole)
      .map(([s, e]) => [s, e])
  const numbers = (text: string): Array<[number, number]> =>
    ranges(text)
      .filter(([, , whole]) => whole)
      .map(([s, e]) => [s, e])
  return [
    {
      id: SENSITIVE_RULE,
      marker: SENSITIVE_MARKER,
      hints: ['":', '["', '[ "'],
      scan: strings,
    },
    {
      id: SENSITIVE_RULE,
      marker: SENSITIVE_NUMBER_MARKER,
      hints: ['":'],
      scan: (text) => numbers(text),
    },
  ]
}
