import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedResponse, Usage } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import type { WriteResponseOptions } from '../types.ts'
import { argsTextOf, callIdOf, deltas, obj, pieces } from './openai-common.ts'

/**
 * Normalized response → what a Chat Completions server sends: a `chat.completion` body, or the
 * `chat.completion.chunk` events of a stream (no `event:` line, `data: [DONE]` last). Text parts are
 * joined into the one `content` string the API has; reasoning goes to `reasoning_content`, as
 * compatible servers send it; media output has no place in a chat message and is left out.
 */

/** `created` when the caller gives none: fixed, so that written responses are reproducible. */
export const FIXED_CREATED = 1_750_000_000

function chatUsageWire(usage: Usage): JsonObject {
  const out: JsonObject = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  }
  if (usage.cachedTokens !== undefined) out.prompt_tokens_details = { cached_tokens: usage.cachedTokens }
  if (usage.reasoningTokens !== undefined)
    out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens }
  return out
}

/** The fields every body and chunk start with: id, object, created and (when known) model. */
function head(response: NormalizedResponse, options: WriteResponseOptions, object: string): JsonObject {
  const out: JsonObject = {
    id: options.id ?? response.requestId ?? 'chatcmpl-crashlab',
    object,
    created: options.created ?? FIXED_CREATED,
  }
  if (response.model !== null) out.model = response.model
  return out
}

function textOf(response: NormalizedResponse, type: 'text' | 'reasoning'): string {
  return response.parts
    .filter((p) => p.type === type)
    .map((p) => (p.type === 'text' || p.type === 'reasoning' ? p.text : ''))
    .join('')
}

/**
 * A `chat.completion` body carrying `response`.
 *
 * @example
 * writeChatResponse({ model: 'gpt-5', requestId: null, parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop', usage: null }, { id: 'chatcmpl-1' })
 * // { id: 'chatcmpl-1', object: 'chat.completion', created: 1750000000, model: 'gpt-5', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }] }
 */
export function writeChatResponse(response: NormalizedResponse, options: WriteResponseOptions): JsonObject {
  const seed = String(options.id ?? response.requestId ?? 'chatcmpl-crashlab')
  const text = textOf(response, 'text')
  const reasoning = textOf(response, 'reasoning')
  const message: JsonObject = {
    role: 'assistant',
    content: text === '' ? null : text,
    refusal: null,
    annotations: [],
  }
  if (reasoning !== '') message.reasoning_content = reasoning
  if (response.toolCalls.length > 0)
    message.tool_calls = response.toolCalls.map((call, i) => ({
      id: callIdOf(call, seed, i),
      type: 'function',
      function: { name: call.name, arguments: argsTextOf(call) },
    }))
  const body = head(response, options, 'chat.completion')
  body.choices = [{ index: 0, message, logprobs: null, finish_reason: response.finishReason }]
  if (response.usage) body.usage = chatUsageWire(response.usage)
  return body
}

/**
 * The same response as a chat stream. A usage chunk (`choices: []`) comes only when the request asked
 * for it with `stream_options.include_usage`, as the API does; a response with no finish reason is
 * written as a stream cut before its end (no finish chunk, no `[DONE]`).
 *
 * @example
 * writeChatStream(response, { request }).map((c) => c.data).at(-1) // '[DONE]'
 */
export function writeChatStream(response: NormalizedResponse, options: WriteResponseOptions): SseChunk[] {
  const seed = String(options.id ?? response.requestId ?? 'chatcmpl-crashlab')
  const includeUsage = obj(options.request?.params.extra?.stream_options)?.include_usage === true
  const events: JsonValue[] = []
  const chunk = (delta: JsonObject, finishReason: string | null = null) => {
    const out = head(response, options, 'chat.completion.chunk')
    out.choices = [{ index: 0, delta, logprobs: null, finish_reason: finishReason }]
    if (includeUsage) out.usage = null
    events.push(out)
  }
  chunk({ role: 'assistant', content: '', refusal: null })
  // One delta: the SDK's stream helper keeps only the last value of fields it does not know.
  const reasoning = textOf(response, 'reasoning')
  if (reasoning !== '') chunk({ reasoning_content: reasoning })
  for (const piece of deltas(textOf(response, 'text'))) chunk({ content: piece })
  response.toolCalls.forEach((call, index) => {
    const id = callIdOf(call, seed, index)
    chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] })
    for (const piece of pieces(argsTextOf(call), 16))
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] })
  })
  if (response.finishReason !== null) chunk({}, response.finishReason)
  if (includeUsage && response.usage) {
    const out = head(response, options, 'chat.completion.chunk')
    out.choices = []
    out.usage = chatUsageWire(response.usage)
    events.push(out)
  }
  const chunks: SseChunk[] = events.map((e) => ({ data: JSON.stringify(e), atMs: 0 }))
  if (response.finishReason !== null) chunks.push({ data: '[DONE]', atMs: 0 })
  return chunks
}
