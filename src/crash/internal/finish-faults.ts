import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedResponse } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import type { ProviderId } from '../../providers/types.ts'

/**
 * The answers of the `refusal`, `content_filter` and `length_cutoff` faults, made from the recorded
 * response (its model, id and usage kept) and written by the adapter. Where an API has a refusal
 * shape the adapters do not write (a normalized refusal is text), the written wire is reshaped here:
 * chat completions' `message.refusal` / `delta.refusal`, and the Responses API's `refusal` content
 * part with its `response.refusal.*` events.
 */

/** What the model says when it refuses. */
export const REFUSAL_TEXT = "I'm sorry, but I can't help with that."

/** A response with nothing in it: what a fault answers from when the step has no recorded response. */
export const EMPTY_RESPONSE: NormalizedResponse = {
  model: null,
  requestId: null,
  parts: [],
  toolCalls: [],
  finishReason: 'stop',
  usage: null,
}

/**
 * The normalized response a finish fault writes. A refusal is the refusal text (Anthropic's
 * `stop_reason: "refusal"` is the adapter's `content_filter`); a content filter withholds all output;
 * a length cutoff keeps the first half of the recorded text and no tool call (a call cut mid-way has
 * no arguments to run).
 */
export function finishResponse(
  kind: 'refusal' | 'content_filter' | 'length_cutoff',
  recorded: NormalizedResponse,
  provider: ProviderId,
): NormalizedResponse {
  const base = { ...recorded, toolCalls: [] }
  if (kind === 'refusal') {
    const finishReason = provider === 'anthropic-messages' ? 'content_filter' : 'stop'
    return { ...base, parts: [{ type: 'text', text: REFUSAL_TEXT }], finishReason }
  }
  if (kind === 'content_filter') return { ...base, parts: [], finishReason: 'content_filter' }
  const text = recorded.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
  const half = text.slice(0, Math.ceil(text.length / 2))
  return { ...base, parts: half === '' ? [] : [{ type: 'text', text: half }], finishReason: 'length' }
}

const SAFETY_RATINGS: JsonValue = [
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
]

/** The plain body of a finish fault, reshaped where the API has its own refusal or filter shape. */
export function reshapeBody(
  kind: 'refusal' | 'content_filter' | 'length_cutoff',
  provider: ProviderId,
  body: JsonValue,
): JsonValue {
  if (kind === 'content_filter' && provider === 'gemini') return withSafetyRatings(body)
  if (kind !== 'refusal') return body
  if (provider === 'openai-chat') {
    const message = firstChoice(body)?.message as JsonObject | undefined
    if (message) Object.assign(message, { content: null, refusal: REFUSAL_TEXT })
    return body
  }
  if (provider === 'openai-responses') return refusalParts(body)
  return body
}

/** The streamed events of a finish fault, reshaped as `reshapeBody` reshapes a plain body. */
export function reshapeStream(
  kind: 'refusal' | 'content_filter' | 'length_cutoff',
  provider: ProviderId,
  chunks: SseChunk[],
): SseChunk[] {
  if (kind === 'content_filter' && provider === 'gemini') {
    return chunks.map((c, i) => (i === chunks.length - 1 ? mapData(c, withSafetyRatings) : c))
  }
  if (kind !== 'refusal') return chunks
  if (provider === 'openai-chat') return chunks.map((c) => mapData(c, chatRefusalDelta))
  if (provider === 'openai-responses') {
    return chunks.map((c) => {
      const event = RESPONSES_REFUSAL_EVENTS[c.event ?? '']
      const reshaped = mapData(c, (data) => {
        const out = refusalParts(data) as JsonObject
        if (event) out.type = event
        if (event === 'response.refusal.done') {
          out.refusal = out.text ?? ''
          delete out.text
        }
        if (event) delete out.logprobs
        return out
      })
      return event ? { ...reshaped, event } : reshaped
    })
  }
  return chunks
}

const RESPONSES_REFUSAL_EVENTS: Readonly<Record<string, string>> = {
  'response.output_text.delta': 'response.refusal.delta',
  'response.output_text.done': 'response.refusal.done',
}

function firstChoice(body: JsonValue): JsonObject | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const choices = body.choices
  return Array.isArray(choices) ? (choices[0] as JsonObject | undefined) : undefined
}

/** A chat chunk's text delta becomes a refusal delta; the opening chunk announces no content. */
function chatRefusalDelta(data: JsonValue): JsonValue {
  const delta = firstChoice(data)?.delta as JsonObject | undefined
  if (!delta || !('content' in delta)) return data
  const text = delta.content
  delete delta.content
  if (text === '') Object.assign(delta, { content: null, refusal: '' })
  else delta.refusal = text ?? null
  return data
}

/** Every Responses `output_text` content part, at any depth, as a `refusal` part with the same text. */
function refusalParts(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(refusalParts)
  if (typeof value !== 'object' || value === null) return value
  if (value.type === 'output_text') return { type: 'refusal', refusal: value.text ?? '' }
  const out: JsonObject = {}
  for (const [key, v] of Object.entries(value)) out[key] = refusalParts(v)
  return out
}

function withSafetyRatings(body: JsonValue): JsonValue {
  const candidates = (body as JsonObject | null)?.candidates
  if (Array.isArray(candidates) && candidates[0] && typeof candidates[0] === 'object') {
    ;(candidates[0] as JsonObject).safetyRatings = SAFETY_RATINGS
  }
  return body
}

function mapData(chunk: SseChunk, map: (data: JsonValue) => JsonValue): SseChunk {
  let data: JsonValue
  try {
    data = JSON.parse(chunk.data) as JsonValue
  } catch {
    return chunk
  }
  return { ...chunk, data: JSON.stringify(map(data)) }
}
