import { DEFAULT_ALLOW_KEYS } from './allow-list.ts'
import { normalizeKey } from './sensitive-keys.ts'

/**
 * The text a stream of server-sent events carries, put back together. A provider splits its answer
 * (message text, tool-call arguments, thinking) over many chunks, each a JSON document in `data`, so a
 * secret can arrive in halves that no pattern matches on its own. Each chunk's string leaves are
 * grouped by their *stream key* (the JSON path, with array positions replaced by the element's own
 * `index` and with every object's `type` and `*index` fields), and the leaves of one key, in chunk order,
 * form one text: OpenAI chat `choices[].delta.content` and tool-call `arguments`, Anthropic
 * `text_delta.text` and `input_json_delta.partial_json`, Responses `delta`, Gemini `parts[].text`, or
 * the raw `data` of a chunk that is not JSON.
 */

type Tokens = (string | number)[]

/** One string of one chunk, and where it sits in the assembled text. */
export interface StreamLeaf {
  /** Position of the chunk in the array. */
  chunk: number
  /** Path inside the chunk's parsed `data`; empty when `data` is not JSON (the leaf is `data` itself). */
  tokens: Tokens
  value: string
  /** Offset of `value` in the assembled text. */
  start: number
}

/** One logical text of a stream: its leaves in order and their concatenation. */
export interface StreamText {
  key: string
  leaves: StreamLeaf[]
  text: string
}

/** What `collectStreamTexts` returns: the texts, and each chunk's parsed `data` (undefined: not JSON). */
export interface CollectedStream {
  texts: StreamText[]
  parsed: unknown[]
}

// Ids, signatures and padding are random by design and never part of a text: joining them would only
// manufacture matches across chunk boundaries.
const SKIP_KEYS = new Set(
  [...DEFAULT_ALLOW_KEYS, 'type', 'object', 'model', 'role', 'finish_reason', 'finishReason'].map(
    normalizeKey,
  ),
)

/**
 * True for an array that looks like SSE chunks: objects with a string `data`.
 *
 * @example
 * isChunkArray([{ data: '{"a":1}', atMs: 0 }]) // true
 */
export function isChunkArray(value: unknown): value is Array<{ data: string }> {
  if (!Array.isArray(value) || value.length < 2) return false
  return value.every(
    (c) =>
      typeof c === 'object' &&
      c !== null &&
      !Array.isArray(c) &&
      typeof (c as { data?: unknown }).data === 'string',
  )
}

function parseData(data: string): unknown {
  const first = data.trimStart()[0]
  if (first !== '{' && first !== '[') return undefined
  try {
    return JSON.parse(data)
  } catch {
    return undefined
  }
}

/** The discriminating fields of an object: `type` and every numeric `*index`, e.g. `{type=text_delta}`. */
function discriminators(obj: Record<string, unknown>): string {
  let out = ''
  for (const [k, v] of Object.entries(obj)) {
    if ((k === 'type' && typeof v === 'string') || (/index$/i.test(k) && typeof v === 'number'))
      out += `${k}=${String(v)};`
  }
  return out ? `{${out}}` : ''
}

function collectLeaves(
  value: unknown,
  tokens: Tokens,
  key: string,
  visit: (tokens: Tokens, key: string, value: string) => void,
  ownIndex = false,
): void {
  if (typeof value === 'string') {
    visit(tokens, key, value)
    return
  }
  if (typeof value !== 'object' || value === null) return
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      // An element that carries its own `index` (a choice, a tool call) is keyed by it, not by position:
      // a parallel tool call's fragments arrive at position 0 of chunk after chunk.
      const indexed =
        typeof item === 'object' && item !== null && typeof (item as { index?: unknown }).index === 'number'
      const own = indexed ? `#${(item as { index: number }).index}` : `@${i}`
      tokens.push(i)
      collectLeaves(item, tokens, `${key}/${own}`, visit, indexed)
      tokens.pop()
    })
    return
  }
  const obj = value as Record<string, unknown>
  // An element keyed by its own `index` is identified already; its other fields come and go between
  // fragments (OpenAI sends a tool call's `type: "function"` in its first delta only), so they must not
  // split one tool call's arguments into two texts.
  const here = ownIndex ? key : key + discriminators(obj)
  for (const [k, item] of Object.entries(obj)) {
    if (SKIP_KEYS.has(normalizeKey(k))) continue
    tokens.push(k)
    collectLeaves(item, tokens, `${here}/${k}`, visit)
    tokens.pop()
  }
}

/**
 * Groups the string leaves of every chunk into texts, in chunk order.
 *
 * @example
 * const { texts } = collectStreamTexts([
 *   { data: '{"choices":[{"index":0,"delta":{"content":"my key is sk-pr"}}]}' },
 *   { data: '{"choices":[{"index":0,"delta":{"content":"oj-…"}}]}' },
 * ])
 * texts[0]?.text // 'my key is sk-proj-…'
 */
export function collectStreamTexts(chunks: readonly { data: string }[]): CollectedStream {
  const byKey = new Map<string, StreamText>()
  const parsed: unknown[] = []
  const add = (chunk: number, tokens: Tokens, key: string, value: string): void => {
    if (value === '') return
    let text = byKey.get(key)
    if (!text) {
      text = { key, leaves: [], text: '' }
      byKey.set(key, text)
    }
    text.leaves.push({ chunk, tokens: [...tokens], value, start: text.text.length })
    text.text += value
  }
  chunks.forEach((c, i) => {
    const doc = parseData(c.data)
    parsed.push(doc)
    const event = (c as { event?: unknown }).event
    const prefix = typeof event === 'string' ? `${event}:` : ''
    if (doc === undefined) add(i, [], `${prefix}<raw>`, c.data)
    else collectLeaves(doc, [], prefix, (tokens, key, value) => add(i, tokens, key, value))
  })
  // A text spread over one chunk only has no boundary to hide a secret across; the per-string pass sees it whole.
  const texts = [...byKey.values()].filter((t) => new Set(t.leaves.map((l) => l.chunk)).size > 1)
  return { texts, parsed }
}
