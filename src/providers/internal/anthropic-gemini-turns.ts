import { canonicalStringify } from '../../case/canonical-json.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Message, Part } from '../../case/schema/normalized.ts'

/**
 * How normalized messages go back into Anthropic and Gemini turns, and how a rewritten request keeps
 * the wire details of what did not change. Both APIs carry tool results inside a user turn, where the
 * normalized shape has one `tool` message per result: writing regroups them.
 */

/** One wire block (or Gemini part) and the normalized value it became, so a rewrite can give it back. */
export interface ReadBlock {
  wire: JsonValue
  /** A part, or for a tool result the parts of its tool message. */
  normalized: Part | { tool: Part[] }
}

/** One wire message (or Gemini content) as read: what it normalized to, and its blocks. */
export interface ReadTurn {
  wire: JsonValue
  messages: Message[]
  blocks: ReadBlock[]
}

/** One wire turn and the normalized messages it carries. */
export interface Turn {
  role: 'user' | 'assistant'
  messages: Message[]
}

/**
 * Groups normalized messages into wire turns: an assistant message is a turn; tool messages and the
 * user message after them make one user turn (results first, as both APIs want them). A `system`
 * message, which neither API has inside the conversation, is sent as a user turn.
 *
 * @example
 * groupTurns([toolMsgA, toolMsgB, userMsg, assistantMsg]).map((t) => t.messages.length) // [3, 1]
 */
export function groupTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = []
  let open: Turn | undefined // a user turn that holds only tool results so far
  for (const message of messages) {
    if (message.role === 'assistant') {
      turns.push({ role: 'assistant', messages: [message] })
      open = undefined
    } else if (message.role === 'tool') {
      if (!open) {
        open = { role: 'user', messages: [] }
        turns.push(open)
      }
      open.messages.push(message)
    } else if (open) {
      open.messages.push(message)
      open = undefined
    } else {
      turns.push({ role: 'user', messages: [message] })
    }
  }
  return turns
}

/**
 * Wire values by the normalized value they stand for. A rewritten request takes the original turn,
 * block or part back when its normalized form is unchanged, so what the normalized shape leaves out
 * (cache_control, thinking signatures, thought signatures, media bytes, unknown blocks) survives.
 * Each original is given back once, in order, so repeated equal values map one to one.
 *
 * @example
 * const pool = new ReusePool<JsonValue>()
 * pool.add({ type: 'text', text: 'hi' }, { type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } })
 * pool.take({ type: 'text', text: 'hi' }) // the original block, cache_control included
 */
export class ReusePool<T> {
  private readonly byKey = new Map<string, T[]>()

  /** Remembers `wire` as the original of `normalized`. */
  add(normalized: unknown, wire: T): void {
    const key = canonicalStringify(normalized)
    const queue = this.byKey.get(key)
    if (queue) queue.push(wire)
    else this.byKey.set(key, [wire])
  }

  /** The next unused original of `normalized`, or undefined. */
  take(normalized: unknown): T | undefined {
    return this.byKey.get(canonicalStringify(normalized))?.shift()
  }
}

/**
 * Deep equality of JSON data through its canonical form (key order does not matter).
 *
 * @example
 * sameJson({ a: 1, b: 2 }, { b: 2, a: 1 }) // true
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalStringify(a) === canonicalStringify(b)
}

/**
 * `value`, or `original` when they hold the same data: a rewrite that changed nothing keeps the
 * client's key order, byte for byte.
 *
 * @example
 * sameOrOriginal({ mode: 'ANY', allowedFunctionNames: ['f'] }, { allowedFunctionNames: ['f'], mode: 'ANY' }) // the original
 */
export function sameOrOriginal<T>(value: T, original: unknown): T {
  return original !== undefined && sameJson(value, original) ? (original as T) : value
}
