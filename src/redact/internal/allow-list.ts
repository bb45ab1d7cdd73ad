import type { ScanAllowList } from '../scan-types.ts'
import { parsePointer } from './json-pointer.ts'
import { normalizeKey } from './sensitive-keys.ts'

/**
 * Where the leak scanner's entropy heuristic expects random values, by location (never by value: a
 * value list would let a leaked key through the moment it was pasted into the list).
 *
 * Keys are matched against the nearest key of the value (for an array item, the key of its array),
 * compared like sensitive keys (case-folded, letters and digits only).
 */
export const DEFAULT_ALLOW_KEYS: readonly string[] = [
  // crashlab's own hashes and ids, and AgentCase's
  'requestHash',
  'sha256',
  'hash',
  'case_id',
  'event_id',
  'execution_id',
  'parent_event_id',
  'source_case_id',
  // provider fields random by design
  'obfuscation', // OpenAI stream padding
  'encrypted_content', // OpenAI Responses reasoning items
  'signature', // Anthropic thinking blocks, Gemini thought signatures
  'thoughtSignature',
  'redacted_thinking',
  'embedding', // base64 embeddings (`encoding_format: "base64"`)
  'b64_json', // generated images
  'system_fingerprint',
  'etag',
  // provider message, call and request ids
  'id',
  'call_id',
  'tool_call_id',
  'tool_use_id',
  'callId',
  'toolCallId',
  'requestId',
  'request_id',
  'response_id',
  'previous_response_id',
  'item_id',
  'message_id',
  'run_id',
  'thread_id',
  'trace_id',
  'span_id',
  'parent_span_id',
  'idempotency-key',
  'x-request-id',
  'request-id',
  'x-amzn-requestid',
  'apim-request-id',
  'cf-ray',
]

/** Pointer globs: `*` matches one token, `**` any number of tokens. */
export const DEFAULT_ALLOW_POINTERS: readonly string[] = [
  '/run/id',
  '/seal', // a cassette's seal, the SHA-256 of the rest of the file (src/case/cassette-seal.ts)
  '**/links/**', // ULIDs of related runs
  '**/audio/data', // base64 audio output
  '**/source/data', // Anthropic base64 image and document blocks
  '**/inline_data/data', // Gemini inline media
  '**/inlineData/data',
]

function globMatch(glob: readonly string[], tokens: readonly string[], gi = 0, ti = 0): boolean {
  if (gi === glob.length) return ti === tokens.length
  const g = glob[gi]!
  if (g === '**') {
    for (let t = ti; t <= tokens.length; t++) if (globMatch(glob, tokens, gi + 1, t)) return true
    return false
  }
  if (ti === tokens.length) return false
  return (g === '*' || g === tokens[ti]) && globMatch(glob, tokens, gi + 1, ti + 1)
}

/**
 * Builds the location test: the built-in allow-list plus `extra`.
 *
 * @example
 * const allowed = createAllowList({ keys: ['trace_token'] })
 * allowed(['steps', 0, 'request', 'requestHash']) // true
 * allowed(['steps', 0, 'note']) // false
 */
export function createAllowList(
  extra: ScanAllowList = {},
): (tokens: readonly (string | number)[]) => boolean {
  const keys = new Set([...DEFAULT_ALLOW_KEYS, ...(extra.keys ?? [])].map(normalizeKey))
  const globs = [...DEFAULT_ALLOW_POINTERS, ...(extra.pointers ?? [])].map(parsePointer)
  return (tokens) => {
    for (let i = tokens.length - 1; i >= 0; i--) {
      const t = tokens[i]
      if (typeof t === 'string') {
        if (keys.has(normalizeKey(t))) return true
        break
      }
    }
    const asText = tokens.map(String)
    return globs.some((g) => globMatch(g, asText))
  }
}

/**
 * The key a text value sits under, read backwards from its offset: `"requestHash": "…`, `sig=…`,
 * `id: …`. Text has no structure, so this is the text scanner's notion of a location.
 *
 * @example
 * keyBefore('{"requestHash":"ab12', 16) // 'requestHash'
 */
export function keyBefore(text: string, offset: number): string | undefined {
  const before = text.slice(Math.max(0, offset - 100), offset)
  return /["']?([A-Za-z0-9_.-]{1,64})\\?["']?\s*[:=]\s*\\?["']?$/.exec(before)?.[1]
}
