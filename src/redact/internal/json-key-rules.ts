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

/** Every value range under a sensitive key, in plain or once-escaped JSON text. */
export function findSensitiveJsonValues(
  text: string,
  isSensitive: (key: string) => boolean,
): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let i = text.indexOf('":'); i !== -1; i = text.indexOf('":', i + 2)) {
    const escaped = text.charCodeAt(i - 1) === 92
    const keyEnd = escaped ? i - 1 : i
    const open = text.lastIndexOf('"', keyEnd - 1)
    if (open === -1 || keyEnd - open > 101) continue
    const keyStart = open + 1
    if (escaped !== (text.charCodeAt(open - 1) === 92)) continue
    const key = text.slice(keyStart, keyEnd)
    if (!isSensitive(key)) continue
    let v = i + 2
    while (text[v] === ' ' || text[v] === '\t') v++
    if (escaped) {
      if (text.charCodeAt(v) !== 92 || text.charCodeAt(v + 1) !== 34) continue
      v += 2
    } else if (text.charCodeAt(v) !== 34) continue
    else v += 1
    const end = stringEnd(text, v, escaped)
    if (end <= v || isLogprobToken(key, text, end)) continue
    out.push([v, end])
  }
  return out
}

/**
 * The text rule over a key test; it reports as `sensitive-key`, like the document walk.
 *
 * @example
 * const [rule] = jsonKeyRules((k) => k === 'apiKey')
 */
export function jsonKeyRules(isSensitive: (key: string) => boolean): CompiledRule[] {
  return [
    {
      id: SENSITIVE_RULE,
      marker: SENSITIVE_MARKER,
      hints: ['":'],
      scan: (text) => findSensitiveJsonValues(text, isSensitive),
    },
  ]
}
