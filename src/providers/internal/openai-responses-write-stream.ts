import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedResponse } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import type { WriteResponseOptions } from '../types.ts'
import { arr, deltas, obj, pieces, str } from './openai-common.ts'
import { writeResponsesResponse } from './openai-responses-write.ts'

/**
 * A Responses API stream, event by event as the API sends it: `response.created`,
 * `response.in_progress`, then for each output item `output_item.added`, its part and delta events
 * and `output_item.done`, then the terminal event carrying the whole response. Each event has its
 * `event:` line and a `sequence_number`. The full item life cycle is what the SDK's
 * `responses.stream().finalResponse()` needs (three bare events make it throw `missing output`).
 */

const TERMINAL: Readonly<Record<string, string>> = {
  completed: 'response.completed',
  incomplete: 'response.incomplete',
  failed: 'response.failed',
}

type Emit = (type: string, payload: JsonObject) => void

function messageEvents(item: JsonObject, index: number, emit: Emit): void {
  const id = str(item.id) ?? ''
  emit('response.output_item.added', {
    output_index: index,
    item: { ...item, status: 'in_progress', content: [] },
  })
  for (const [k, value] of arr(item.content).entries()) {
    const part = obj(value) ?? {}
    const text = str(part.text) ?? ''
    const at = { item_id: id, output_index: index, content_index: k }
    emit('response.content_part.added', { ...at, part: { ...part, text: '' } })
    for (const delta of deltas(text)) emit('response.output_text.delta', { ...at, delta, logprobs: [] })
    emit('response.output_text.done', { ...at, text, logprobs: [] })
    emit('response.content_part.done', { ...at, part })
  }
  emit('response.output_item.done', { output_index: index, item })
}

function reasoningEvents(item: JsonObject, index: number, emit: Emit): void {
  const id = str(item.id) ?? ''
  emit('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', summary: [] } })
  for (const [k, value] of arr(item.summary).entries()) {
    const part = obj(value) ?? {}
    const text = str(part.text) ?? ''
    const at = { item_id: id, output_index: index, summary_index: k }
    emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } })
    for (const delta of deltas(text)) emit('response.reasoning_summary_text.delta', { ...at, delta })
    emit('response.reasoning_summary_text.done', { ...at, text })
    emit('response.reasoning_summary_part.done', { ...at, part })
  }
  emit('response.output_item.done', { output_index: index, item })
}

function functionCallEvents(item: JsonObject, index: number, emit: Emit): void {
  const id = str(item.id) ?? ''
  const args = str(item.arguments) ?? ''
  emit('response.output_item.added', {
    output_index: index,
    item: { ...item, status: 'in_progress', arguments: '' },
  })
  for (const delta of pieces(args, 16))
    emit('response.function_call_arguments.delta', { item_id: id, output_index: index, delta })
  emit('response.function_call_arguments.done', {
    item_id: id,
    output_index: index,
    name: item.name ?? '',
    arguments: args,
  })
  emit('response.output_item.done', { output_index: index, item })
}

/**
 * The stream of `response`. A response with no finish reason is written as a stream cut before its
 * terminal event.
 *
 * @example
 * writeResponsesStream(response, { id: 'resp_1' }).map((c) => c.event)
 * // ['response.created', 'response.in_progress', 'response.output_item.added', …, 'response.completed']
 */
export function writeResponsesStream(
  response: NormalizedResponse,
  options: WriteResponseOptions,
): SseChunk[] {
  const final = writeResponsesResponse(response, options)
  const chunks: SseChunk[] = []
  let sequence = 0
  const emit: Emit = (type, payload) => {
    const event: JsonValue = { type, ...payload, sequence_number: sequence++ }
    chunks.push({ event: type, data: JSON.stringify(event), atMs: 0 })
  }
  const snapshot = {
    ...final,
    status: 'in_progress',
    completed_at: null,
    error: null,
    incomplete_details: null,
  }
  Object.assign(snapshot, { output: [], usage: null })
  emit('response.created', { response: snapshot })
  emit('response.in_progress', { response: snapshot })
  for (const [index, value] of arr(final.output).entries()) {
    const item = obj(value) ?? {}
    if (item.type === 'message') messageEvents(item, index, emit)
    else if (item.type === 'reasoning') reasoningEvents(item, index, emit)
    else functionCallEvents(item, index, emit)
  }
  const terminal = TERMINAL[str(final.status) ?? '']
  if (terminal) emit(terminal, { response: final })
  return chunks
}
