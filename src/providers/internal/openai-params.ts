import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Params } from '../../case/schema/normalized.ts'
import { num, obj, str } from './openai-common.ts'

/**
 * Sampling parameters of both OpenAI APIs: the ones with a neutral name, and the rest under `extra`
 * with their wire names. A described field whose value does not fit its neutral type (a string
 * temperature from a hand-written client) is kept under `extra` too, so nothing is dropped; a null
 * one means "the default" and is left out.
 */

/** `tool_choice` in the neutral form: 'auto' | 'none' | 'required' | { name }, or the wire value as is. */
export function normalizeToolChoice(value: JsonValue): JsonValue {
  const choice = obj(value)
  if (choice?.type === 'function') {
    const name = str(obj(choice.function)?.name) ?? str(choice.name)
    if (name !== undefined) return { name }
  }
  return value
}

/** The neutral `toolChoice` back on the wire: chat nests the function, Responses does not. */
export function writeToolChoice(value: JsonValue, api: 'chat' | 'responses'): JsonValue {
  const choice = obj(value)
  const name = choice && Object.keys(choice).length === 1 ? str(choice.name) : undefined
  if (name === undefined) return value
  return api === 'chat' ? { type: 'function', function: { name } } : { type: 'function', name }
}

/** Where the neutral parameters live in one API's body. */
export interface ParamNames {
  /** Wire names of the token limit, preferred first; the others stay under `extra`. */
  maxTokens: readonly string[]
  /** Chat has `stop` and `seed`; Responses has neither. */
  stopAndSeed: boolean
}

/**
 * Reads the neutral parameters out of `body`; `handled` lists the fields the adapter reads itself
 * (model, messages, tools, ...), which land neither in the neutral parameters nor in `extra`.
 */
export function readParams(body: JsonObject, names: ParamNames, handled: readonly string[]): Params {
  const params: Params = {}
  const extra: Record<string, JsonValue> = {}
  const maxKey = names.maxTokens.find((k) => body[k] !== undefined && body[k] !== null)
  for (const [key, value] of Object.entries(body)) {
    // An own `__proto__` key (JSON.parse makes one) would replace `extra`'s prototype; a cassette drops it anyway.
    if (handled.includes(key) || key === '__proto__') continue
    if (value === null && isDescribed(key, names)) continue
    if (!readParam(params, key, value, names, maxKey)) extra[key] = value
  }
  if (Object.keys(extra).length > 0) params.extra = extra
  return params
}

function isDescribed(key: string, names: ParamNames): boolean {
  if (names.maxTokens.includes(key)) return true
  if (names.stopAndSeed && (key === 'stop' || key === 'seed')) return true
  if (names.stopAndSeed && key === 'response_format') return true
  return ['temperature', 'top_p', 'tool_choice', 'stream'].includes(key)
}

/** Sets the neutral parameter for `key`; false when it has none (or the value does not fit). */
function readParam(
  params: Params,
  key: string,
  value: JsonValue,
  names: ParamNames,
  maxKey?: string,
): boolean {
  const n = num(value)
  switch (key) {
    case 'temperature':
      if (n !== undefined) params.temperature = n
      return n !== undefined
    case 'top_p':
      if (n !== undefined) params.topP = n
      return n !== undefined
    case 'tool_choice':
      params.toolChoice = normalizeToolChoice(value)
      return true
    case 'stream':
      if (typeof value === 'boolean') params.stream = value
      return typeof value === 'boolean'
    case 'response_format':
      // chat only: Responses carries its format in `text.format`, which the adapter reads itself
      if (names.stopAndSeed) params.responseFormat = value
      return names.stopAndSeed
  }
  if (key === maxKey && n !== undefined && Number.isInteger(n)) {
    params.maxTokens = n
    return true
  }
  if (!names.stopAndSeed) return false
  if (key === 'seed' && n !== undefined && Number.isInteger(n)) {
    params.seed = n
    return true
  }
  if (key === 'stop') {
    if (typeof value === 'string') params.stop = [value]
    else if (Array.isArray(value) && value.every((s) => typeof s === 'string'))
      params.stop = value as string[]
    else return false
    return true
  }
  return false
}

/**
 * The neutral parameters as wire fields, in the names the original body used (`max_tokens` stays
 * `max_tokens`, a one-element `stop` that was a string stays a string).
 */
export function writeParams(
  params: Params,
  original: JsonObject,
  names: ParamNames,
  api: 'chat' | 'responses',
): Record<string, JsonValue | undefined> {
  const out: Record<string, JsonValue | undefined> = {
    temperature: params.temperature,
    top_p: params.topP,
    tool_choice: params.toolChoice === undefined ? undefined : writeToolChoice(params.toolChoice, api),
    stream: params.stream,
  }
  const extra = params.extra ?? {}
  const maxKey =
    names.maxTokens.find((k) => original[k] !== undefined && original[k] !== null && !(k in extra)) ??
    names.maxTokens.find((k) => !(k in extra)) ??
    names.maxTokens[0]!
  out[maxKey] = params.maxTokens
  if (names.stopAndSeed) {
    out.seed = params.seed
    out.response_format = params.responseFormat
    const stop = params.stop
    out.stop = stop && stop.length === 1 && typeof original.stop === 'string' ? stop[0] : stop
  }
  return out
}

/**
 * The body to send: `described` fields and the undescribed rest, in the original body's key order
 * (new keys last), so that a rewritten request diffs cleanly against the recorded one. The rest is
 * `extra` when the normalized request has one, else the original's own undescribed fields.
 */
export function assembleBody(
  original: JsonObject,
  described: Record<string, JsonValue | undefined>,
  rest: Record<string, JsonValue>,
): JsonObject {
  const out: JsonObject = {}
  const put = (key: string) => {
    if (key in out) return
    if (key in described) {
      const value = described[key]
      if (value !== undefined) out[key] = value
    } else if (key in rest) out[key] = rest[key]!
  }
  for (const key of Object.keys(original)) put(key)
  for (const key of Object.keys(described)) put(key)
  for (const key of Object.keys(rest)) put(key)
  return out
}
