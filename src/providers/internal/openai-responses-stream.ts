import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import { sseJson } from '../sse.ts'
import type { AssembledStream } from '../types.ts'
import { arr, num, obj, str } from './openai-common.ts'
import { normalizeResponsesBody } from './openai-responses-response.ts'

/**
 * Puts a Responses API stream back together. The terminal event (`response.completed`,
 * `response.incomplete`, `response.failed`) carries the whole response and is preferred; the output
 * items are rebuilt from the item events when it is missing (a cut stream) or arrives without output.
 */

const TERMINAL = ['response.completed', 'response.incomplete', 'response.failed']
const SNAPSHOT = ['response.created', 'response.in_progress', 'response.queued']

/** Where the text of a `….delta` / `….done` event pair lives in its item. */
interface TextTarget {
  itemType: string
  /** The item's list of parts holding the text, and the event field indexing it; none: the item itself. */
  list?: { key: 'content' | 'summary'; at: 'content_index' | 'summary_index'; type: string }
  field: string
}

const TEXT_EVENTS: Readonly<Record<string, TextTarget>> = {
  'response.output_text': {
    itemType: 'message',
    list: { key: 'content', at: 'content_index', type: 'output_text' },
    field: 'text',
  },
  'response.refusal': {
    itemType: 'message',
    list: { key: 'content', at: 'content_index', type: 'refusal' },
    field: 'refusal',
  },
  'response.function_call_arguments': { itemType: 'function_call', field: 'arguments' },
  'response.custom_tool_call_input': { itemType: 'custom_tool_call', field: 'input' },
  'response.reasoning_summary_text': {
    itemType: 'reasoning',
    list: { key: 'summary', at: 'summary_index', type: 'summary_text' },
    field: 'text',
  },
  'response.reasoning_text': {
    itemType: 'reasoning',
    list: { key: 'content', at: 'content_index', type: 'reasoning_text' },
    field: 'text',
  },
}

/** The item at `index`, created on first use, so a stream cut before `output_item.added` keeps its deltas. */
function itemAt(items: Map<number, JsonObject>, index: number, type: string): JsonObject {
  let item = items.get(index)
  if (!item) {
    item = { type }
    items.set(index, item)
  }
  return item
}

/** The element `index` of the array field `key` of `item`, created as `init` when missing. */
function slot(item: JsonObject, key: string, index: number, init: JsonObject): JsonObject {
  const list = Array.isArray(item[key]) ? (item[key] as JsonValue[]) : []
  item[key] = list
  const existing = obj(list[index])
  if (existing) return existing
  list[index] = init
  return init
}

/** Applies one item event to the items built so far. */
function apply(items: Map<number, JsonObject>, type: string, e: JsonObject): void {
  const index = num(e.output_index) ?? 0
  if (type === 'response.output_item.added' || type === 'response.output_item.done') {
    const item = obj(e.item)
    if (item) items.set(index, structuredClone(item))
    return
  }
  const partEvent = /^response\.(content_part|reasoning_summary_part)\.(added|done)$/.exec(type)
  if (partEvent) {
    const part = obj(e.part) ?? {}
    const summary = partEvent[1] === 'reasoning_summary_part'
    const item = itemAt(items, index, summary || part.type === 'reasoning_text' ? 'reasoning' : 'message')
    const at = num(summary ? e.summary_index : e.content_index) ?? 0
    Object.assign(slot(item, summary ? 'summary' : 'content', at, {}), structuredClone(part))
    return
  }
  const dot = type.lastIndexOf('.')
  const target = TEXT_EVENTS[type.slice(0, dot)]
  const kind = type.slice(dot + 1)
  if (!target || (kind !== 'delta' && kind !== 'done')) return
  const item = itemAt(items, index, target.itemType)
  const holder = target.list
    ? slot(item, target.list.key, num(e[target.list.at]) ?? 0, { type: target.list.type })
    : item
  // A delta appends; a done event carries the whole text under the field's own name.
  if (kind === 'delta') holder[target.field] = (str(holder[target.field]) ?? '') + (str(e.delta) ?? '')
  else holder[target.field] = str(e[target.field]) ?? ''
}

/**
 * A Responses stream, assembled. Complete when a terminal event arrived and nothing went wrong: an
 * `error` event, a `response.failed`, an event cut mid-JSON or a missing terminal event make it
 * incomplete (a failed response is also finish reason `error`). `response.incomplete` is a complete
 * stream whose response stopped at the token limit or the content filter.
 *
 * @example
 * assembleResponsesStream(parseSse(sseText)).response.parts // [{ type: 'text', text: 'Hi there!' }]
 */
export function assembleResponsesStream(chunks: readonly SseChunk[]): AssembledStream {
  const items = new Map<number, JsonObject>()
  let snapshot: JsonObject | undefined
  let terminal: JsonObject | undefined
  let terminalType: string | undefined
  let broken = false
  let errored = false
  for (const chunk of chunks) {
    const json = obj(sseJson(chunk))
    if (!json) {
      // Some compatible servers end with a chat-style `[DONE]`; anything else is an event cut mid-JSON.
      if (chunk.data.trim() !== '[DONE]') broken = true
      continue
    }
    const type = str(json.type) ?? chunk.event ?? ''
    if (SNAPSHOT.includes(type)) snapshot = obj(json.response) ?? snapshot
    else if (TERMINAL.includes(type)) {
      terminal = obj(json.response) ?? {}
      terminalType = type
    } else if (type === 'error') errored = true
    else apply(items, type, json)
  }
  const streamed = [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item)
  const final: JsonObject = { ...snapshot, ...terminal }
  const finalOutput = arr(terminal?.output)
  const output = finalOutput.length > 0 || streamed.length === 0 ? finalOutput : streamed
  const response = normalizeResponsesBody(final, output)
  if (!terminal) {
    response.finishReason = errored ? 'error' : null
    response.usage = null
  } else if (terminalType === 'response.failed') response.finishReason = 'error'
  return { response, incomplete: !terminal || broken || errored || terminalType === 'response.failed' }
}
