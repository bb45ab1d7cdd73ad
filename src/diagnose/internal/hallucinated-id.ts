import type { JsonValue } from '../../case/schema/json.ts'
import type { Part } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import type { Step } from '../../case/schema/step.ts'

/** An id a model call sent as a tool argument that no earlier message or tool result contains. */
export interface HallucinatedId {
  /** The model call that emitted the tool call: the culprit step. */
  step: number
  tool: string
  /** The argument's key (the nearest one, for a value inside an array or a nested object). */
  key: string
  value: string
  /** A verbatim piece of the step's text that shows the value: `"order_id":"A99"`. */
  quote: string
}

// The last word of a key (snake_case, kebab-case or camelCase) that says its value names a record.
const ID_WORDS = new Set([
  'id',
  'ids',
  'uuid',
  'guid',
  'ref',
  'refs',
  'reference',
  'number',
  'no',
  'num',
  'code',
  'sku',
  'key',
  'pnr',
  'locator',
])
// One token: letters, digits, dashes and underscores, nothing else (no space, dot, colon, slash, @).
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * Whether a tool argument counts as an id, the kind of value a model must copy, not make up. Only a
 * string that is one token of letters, digits, `-` and `_` (at most 64 characters), with a digit, and
 * not an ISO date; then either its key names an id (its last word is `id`, `ref`, `number`, `no`,
 * `code`, `sku`, `key`, `uuid`, …: `order_id`, `bookingRef`, `flight_no`) and it has 3 characters or
 * more, or it has 4 or more with a letter as well as a digit (`QX7P2L`, `INV-2041`). Numbers, booleans,
 * prose, dates and times, e-mail addresses, URLs, and words without a digit (`yes`, `USD`, `P`) never
 * count.
 *
 * @example
 * isIdLike('order_id', 'A17') // true
 * isIdLike('currency', 'USD') // false
 */
export function isIdLike(key: string, value: string): boolean {
  if (value.length > 64 || !TOKEN.test(value) || !/\d/.test(value) || ISO_DATE.test(value)) return false
  if (ID_WORDS.has(lastWord(key))) return value.length >= 3
  return value.length >= 4 && /[A-Za-z]/.test(value)
}

/**
 * Rule 6 of the heuristic: the first tool call a model made with an id (see `isIdLike`) that appears in
 * no earlier message or tool result, the hallucinated id. "Earlier" is everything the run had seen
 * before the model call answered: the run's input, the call's request (system prompt, every message,
 * the tools' definitions, so that a schema's enum values and examples count as seen), and every earlier
 * step (tool arguments, results and errors, other model calls' requests and answers, HTTP bodies). The
 * comparison ignores case and everything but letters and digits, so `a17`, `A-17` and `"A17"` inside
 * a JSON string in a tool result all match `A17`, and a substring counts (`A17` is seen in "order
 * #A17,"). A value made of pieces that were all seen (`refund-A17`: `A17` seen, `refund` has no digit)
 * is derived, not invented. Tool calls no model announced (a wrapped tool called by the agent's own
 * code) are not checked. Null when no call sent an unseen id.
 *
 * @example
 * findHallucinatedId(run) // { step: 2, tool: 'issue_refund', key: 'order_id', value: 'A99', quote: '"order_id":"A99"' }
 */
export function findHallucinatedId(run: Run): HallucinatedId | null {
  const seen: string[] = [fold(textOf(run.input))]
  for (const step of run.steps) {
    if (step.type === 'llm') {
      seen.push(fold(requestText(step)))
      const known = seen.join('|')
      for (const call of step.response?.normalized?.toolCalls ?? []) {
        for (const arg of idArguments(call.args)) {
          if (!isSeen(arg.value, known)) return { step: step.index, tool: call.name, ...arg }
        }
      }
    }
    seen.push(fold(stepFacts(step)))
  }
  return null
}

function isSeen(value: string, known: string): boolean {
  if (known.includes(fold(value))) return true
  // Derived from seen ids: each piece that has a digit was seen, and is long enough to say so.
  const pieces = value.split(/[-_]+/)
  const ids = pieces.filter((p) => /\d/.test(p))
  return pieces.length > 1 && ids.length > 0 && ids.every((p) => p.length >= 3 && known.includes(fold(p)))
}

/** The id-like string values of a call's arguments, each with its nearest key and a quote. */
function idArguments(args: JsonValue, key = ''): Array<{ key: string; value: string; quote: string }> {
  if (typeof args === 'string') {
    const value = args.trim().replace(/^["'#]+|["']+$/g, '')
    return isIdLike(key, value) ? [{ key, value, quote: JSON.stringify(args) }] : []
  }
  if (Array.isArray(args)) return args.flatMap((a) => idArguments(a, key))
  if (args === null || typeof args !== 'object') return []
  return Object.entries(args).flatMap(([k, v]) =>
    idArguments(v, k).map((a) =>
      typeof v === 'string' ? { ...a, quote: `${JSON.stringify(k)}:${a.quote}` } : a,
    ),
  )
}

/** What a model call was sent: the input it answered. */
function requestText(step: Extract<Step, { type: 'llm' }>): string {
  const request = step.request.normalized
  if (!request) return step.request.wire.bodyText ?? JSON.stringify(step.request.wire.body)
  const parts = [...request.system, ...request.messages.flatMap((m) => m.parts)]
  return [...parts.map(partText), JSON.stringify(request.tools)].join('|')
}

/** What a step added to the run, once it was over: a model's answer, a tool's result, an HTTP body. */
function stepFacts(step: Step): string {
  if (step.type === 'tool') {
    return [
      textOf(step.args),
      step.result === undefined ? '' : textOf(step.result),
      step.error?.message ?? '',
    ].join('|')
  }
  if (step.type === 'http') {
    const bodies = [step.request, step.response].map((w) => w?.bodyText ?? JSON.stringify(w?.body ?? null))
    return bodies.join('|')
  }
  const normalized = step.response?.normalized
  const answer = normalized ? [...normalized.parts, ...normalized.toolCalls].map(partText) : []
  return [...answer, step.response?.wire.bodyText ?? '', step.error?.message ?? ''].join('|')
}

function partText(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'tool_result':
      return part.content
    case 'tool_call':
      return part.argsText ?? JSON.stringify(part.args)
    case 'media':
      return part.ref ?? ''
  }
}

function textOf(value: JsonValue | null | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null)
}

/** Lower case, letters and digits only: quoting, escaping, case and separators do not hide a match. */
function fold(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '')
}

function lastWord(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
  return words.at(-1) ?? ''
}
