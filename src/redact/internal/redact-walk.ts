import type { HookRule, RedactionRecord } from '../types.ts'
import { toPointer } from './json-pointer.ts'
import { redactStreamChunks } from './redact-stream.ts'
import { applyMatches, MARKER_PREFIX, RuleFailure, type RuleSet } from './rule-set.ts'
import { normalizeKey, SENSITIVE_MARKER, SENSITIVE_RULE } from './sensitive-keys.ts'
import { isChunkArray } from './stream-text.ts'

/**
 * Written in place of a value a rule failed on: the value is dropped, never passed through.
 *
 * @example
 * if (result.partial) console.warn(result.records.filter((r) => r.marker === FAILED_MARKER))
 */
export const FAILED_MARKER = '[REDACTED:rule-failed]'

export interface WalkState {
  rules: RuleSet
  isSensitive: (key: string) => boolean
  hooks: readonly HookRule[]
  records: RedactionRecord[]
  warnings: string[]
  partial: boolean
}

type Tokens = (string | number)[]

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

function isMarker(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith(MARKER_PREFIX) && v.endsWith(']')
}

/**
 * Whether the value at `obj[key]` is replaced whole. Besides the key itself, three locations decide,
 * shared with the leak scanner so that both agree:
 * - `{ name: 'Authorization', value: '…' }` (HAR, `Headers` dumps): `value` is sensitive by its name;
 * - `{ token: 'Hello', logprob: -0.3 }` (logprobs): a tokenizer token, not a credential;
 * - `properties: { password: { type: 'string' } }` (a tool's JSON Schema): a property definition, not
 *   a value; it is walked like any object, so a secret planted inside it is still found.
 *
 * @example
 * isSensitiveEntry({ name: 'X-Api-Key', value: 'k' }, 'value', undefined, (k) => /api-?key/i.test(k)) // true
 */
export function isSensitiveEntry(
  obj: Record<string, unknown>,
  key: string,
  parentKey: string | number | undefined,
  isSensitive: (key: string) => boolean,
): boolean {
  if (key === 'value') {
    const name = typeof obj.name === 'string' ? obj.name : typeof obj.key === 'string' ? obj.key : obj.header
    if (typeof name === 'string' && isSensitive(name)) return true
  }
  if (!isSensitive(key)) return false
  if ('logprob' in obj && normalizeKey(key) === 'token') return false
  const v = obj[key]
  return !(parentKey === 'properties' && typeof v === 'object' && v !== null && !Array.isArray(v))
}

/**
 * Redacts `value` found at `tokens`. Returns the same reference when nothing under it changed, so that a
 * multi-megabyte cassette with three secrets costs three small copies, not a deep clone.
 *
 * @example
 * redactWalk({ apiKey: 'x' }, state, [], undefined, false) // { apiKey: '[REDACTED:sensitive-key]' }
 */
export function redactWalk(
  value: unknown,
  state: WalkState,
  tokens: Tokens,
  key: string | undefined,
  sensitive: boolean,
): unknown {
  if (sensitive) {
    if (isMarker(value)) return value
    state.records.push({ path: toPointer(tokens), rule: SENSITIVE_RULE, marker: SENSITIVE_MARKER })
    return SENSITIVE_MARKER
  }
  if (typeof value === 'string') return redactText(value, state, tokens, key)
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return redactArray(value, state, tokens)
  if (!isPlainObject(value)) return value // Dates, Maps, class instances: not JSON data, left as given
  return redactObject(value, state, tokens)
}

const active = new Set<object>()

function redactArray(arr: readonly unknown[], state: WalkState, tokens: Tokens): unknown {
  if (active.has(arr)) return arr // a cycle: the JSON writer refuses it with a clear error
  active.add(arr)
  let copy: unknown[] | undefined
  try {
    for (let i = 0; i < arr.length; i++) {
      const item = arr[i]
      tokens.push(i)
      const next = redactWalk(item, state, tokens, undefined, false)
      const pair = Array.isArray(next) ? redactPairTuple(next, state, tokens) : next
      tokens.pop()
      if (pair !== item && !copy) copy = arr.slice(0, i)
      if (copy) copy.push(pair)
    }
  } finally {
    active.delete(arr)
  }
  return copy ?? arr
}

/** `[['authorization', 'Bearer …'], …]`, the shape of `Object.entries(headers)`. */
function redactPairTuple(pair: unknown[], state: WalkState, tokens: Tokens): unknown[] {
  if (pair.length !== 2 || typeof pair[0] !== 'string' || !state.isSensitive(pair[0]) || isMarker(pair[1]))
    return pair
  tokens.push(1)
  const value = redactWalk(pair[1], state, tokens, pair[0], true)
  tokens.pop()
  return [pair[0], value]
}

function redactObject(obj: Record<string, unknown>, state: WalkState, tokens: Tokens): unknown {
  if (active.has(obj)) return obj
  active.add(obj)
  let copy: Record<string, unknown> | undefined
  const keys = Object.keys(obj)
  const parentKey = tokens[tokens.length - 1]
  try {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!
      const item = obj[k]
      const newKey = redactKey(k, state, tokens)
      tokens.push(newKey)
      const sensitive = isSensitiveEntry(obj, k, parentKey, state.isSensitive)
      // SSE chunks are redacted as the text they assemble to first (a secret split over two chunks),
      // then string by string like any other value.
      const whole =
        k === 'chunks' && !sensitive && isChunkArray(item) ? redactStreamChunks(item, state, tokens) : item
      const next = redactWalk(whole, state, tokens, k, sensitive)
      tokens.pop()
      if ((next !== item || newKey !== k) && !copy) {
        copy = {}
        for (let j = 0; j < i; j++) putOwn(copy, keys[j]!, obj[keys[j]!])
      }
      if (copy) {
        // Two keys redacted to the same marker must not overwrite each other.
        let target = newKey
        for (let n = 2; target !== k && Object.hasOwn(copy, target); n++) target = `${newKey}#${n}`
        putOwn(copy, target, next)
      }
    }
  } finally {
    active.delete(obj)
  }
  return copy ?? obj
}

/**
 * Sets an own property. A plain `o[k] = v` with k `__proto__` (a key JSON.parse happily produces) would
 * replace the copy's prototype instead and lose the key.
 */
function putOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  else o[k] = v
}

/** A secret used as a key (a map keyed by API key) is a secret all the same. */
function redactKey(key: string, state: WalkState, tokens: Tokens): string {
  if (key.length < 8) return key
  let matches: ReturnType<RuleSet['find']>
  try {
    matches = state.rules.find(key)
  } catch (err) {
    fail(state, tokens, err instanceof RuleFailure ? err.ruleId : 'unknown', err)
    return FAILED_MARKER
  }
  if (matches.length === 0) return key
  const next = applyMatches(key, matches)
  for (const m of matches)
    state.records.push({ path: toPointer([...tokens, next]), rule: m.rule.id, marker: m.rule.marker })
  return next
}

/** Rounds of matching one string goes through before its redaction is taken as final. */
const MAX_ROUNDS = 4

function redactText(text: string, state: WalkState, tokens: Tokens, key: string | undefined): string {
  const start = state.records.length
  let out = text
  try {
    // Until nothing more matches: a rule may look at what follows a secret (a lookahead, a validator
    // of the context), and a marker in its place can make another match appear. Redacting to a fixed
    // point makes a second pass over written text a no-op. Rarely more than one round.
    const seen = new Set<string>()
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const matches = state.rules.find(out)
      if (matches.length === 0) break
      out = applyMatches(out, matches)
      const path = toPointer(tokens)
      for (const m of matches) {
        if (seen.has(m.rule.id)) continue
        seen.add(m.rule.id)
        state.records.push({ path, rule: m.rule.id, marker: m.rule.marker })
      }
    }
  } catch (err) {
    return fail(state, tokens, err instanceof RuleFailure ? err.ruleId : 'unknown', err, start)
  }
  for (const hook of state.hooks) {
    let replaced: string | undefined
    try {
      replaced = hook.fn(out, { path: toPointer(tokens), key })
      if (replaced !== undefined && typeof replaced !== 'string') {
        throw new TypeError(`hook returned a ${typeof replaced}, not a string or undefined`)
      }
    } catch (err) {
      return fail(state, tokens, hook.id, err, start)
    }
    if (replaced !== undefined && replaced !== out) {
      out = replaced
      state.records.push({ path: toPointer(tokens), rule: hook.id, marker: replaced })
    }
  }
  return out
}

/**
 * Drops the value: its records so far are replaced by one `rule-failed` record. The warning names the
 * rule, the path and the error's class, never its message, which may quote the value.
 */
function fail(
  state: WalkState,
  tokens: Tokens,
  ruleId: string,
  err: unknown,
  recordsFrom = state.records.length,
): string {
  const path = toPointer(tokens)
  state.records.length = recordsFrom
  state.records.push({ path, rule: ruleId, marker: FAILED_MARKER })
  state.partial = true
  const kind = err instanceof RuleFailure ? err.cause : err
  const name = kind instanceof Error ? kind.name : typeof kind
  state.warnings.push(
    `[crashlab] redaction rule "${ruleId}" failed at ${path || '/'} (${name}); the value was dropped and the write is partial. Fix or remove the rule.`,
  )
  return FAILED_MARKER
}
