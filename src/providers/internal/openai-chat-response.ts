import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type {
  FinishReason,
  NormalizedResponse,
  Part,
  ToolCallPart,
  Usage,
} from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import { sseJson } from '../sse.ts'
import type { AssembledStream } from '../types.ts'
import { arr, chatFinishReason, num, obj, str, toolCall, usageOf } from './openai-common.ts'

/**
 * Chat Completions response → normalized response, from a `chat.completion` body or from the
 * `chat.completion.chunk` events of a stream. Only the first choice is read (`n > 1` is rare in
 * agents). A refusal is the model's answer: it is text, and the finish reason is the wire's (`stop`);
 * `content_filter` is kept for the provider's filter cutting the output. Empty text is no part, so a
 * streamed response (whose first delta is `content: ""`) and its plain twin normalize alike.
 */

function chatUsage(usage: unknown): Usage | null {
  const u = obj(usage)
  if (!u) return null
  return usageOf(
    u.prompt_tokens,
    u.completion_tokens,
    obj(u.prompt_tokens_details)?.cached_tokens,
    obj(u.completion_tokens_details)?.reasoning_tokens,
  )
}

/** The text of `content`: a string, or the text parts of an array (some compatible servers send one). */
function contentText(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content
  return arr(content)
    .map((p) => str(obj(p)?.text) ?? '')
    .join('')
}

function partsOf(reasoning: string, text: string, refusal: string): Part[] {
  const parts: Part[] = []
  if (reasoning !== '') parts.push({ type: 'reasoning', text: reasoning })
  if (text !== '') parts.push({ type: 'text', text })
  if (refusal !== '') parts.push({ type: 'text', text: refusal })
  return parts
}

/**
 * A `chat.completion` body, normalized.
 *
 * @example
 * normalizeChatBody({ id: 'chatcmpl-1', model: 'gpt-5', choices: [{ message: { content: 'Hi' }, finish_reason: 'stop' }] })
 * // { model: 'gpt-5', requestId: 'chatcmpl-1', parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop', usage: null }
 */
export function normalizeChatBody(body: JsonObject): NormalizedResponse {
  const choice = obj(arr(body.choices)[0])
  const message = obj(choice?.message) ?? {}
  const toolCalls: ToolCallPart[] = []
  for (const call of arr(message.tool_calls)) {
    const c = obj(call)
    const fn = obj(c?.function) ?? obj(c?.custom)
    if (c && fn)
      toolCalls.push(toolCall(str(c.id) ?? '', str(fn.name) ?? '', str(fn.arguments) ?? str(fn.input) ?? ''))
  }
  const reasoning = str(message.reasoning_content) ?? str(message.reasoning) ?? ''
  let finishReason = chatFinishReason(choice?.finish_reason)
  // A proxy that failed upstream may answer 200 with an error object and no choices.
  if (!choice && body.error !== undefined && body.error !== null) finishReason = 'error'
  return {
    model: str(body.model) || null,
    requestId: str(body.id) || null,
    parts: partsOf(reasoning, contentText(message.content), str(message.refusal) ?? ''),
    toolCalls,
    finishReason,
    usage: chatUsage(body.usage),
  }
}

interface StreamedCall {
  id: string
  name: string
  args: string
}

/**
 * Puts a chat stream back together. The stream is complete when it ends with `data: [DONE]` and
 * nothing went wrong on the way; an error chunk (or finish reason `error`), an event cut mid-JSON or a
 * missing `[DONE]` make it incomplete, and what arrived is kept (partial text, partial tool arguments
 * as `argsText`).
 *
 * @example
 * assembleChatStream(parseSse('data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'))
 * // { response: { parts: [{ type: 'text', text: 'Hi' }], finishReason: 'stop', ... }, incomplete: false }
 */
export function assembleChatStream(chunks: readonly SseChunk[]): AssembledStream {
  let text = ''
  let refusal = ''
  let reasoning = ''
  let model: string | null = null
  let id: string | null = null
  let finishReason: FinishReason | null = null
  let usage: Usage | null = null
  let done = false
  let broken = false
  let errored = false
  const calls = new Map<number, StreamedCall>()

  for (const chunk of chunks) {
    if (done) break
    if (chunk.data.trim() === '[DONE]') {
      done = true
      continue
    }
    const json = obj(sseJson(chunk))
    if (!json) {
      broken = true
      continue
    }
    if (json.error !== undefined && json.error !== null) errored = true
    model ??= str(json.model) || null
    id ??= str(json.id) || null
    usage = chatUsage(json.usage) ?? chatUsage(obj(json.x_groq)?.usage) ?? usage
    for (const c of arr(json.choices)) {
      const choice = obj(c)
      if (!choice || (num(choice.index) ?? 0) !== 0) continue
      const delta = obj(choice.delta) ?? {}
      text += str(delta.content) ?? ''
      refusal += str(delta.refusal) ?? ''
      reasoning += str(delta.reasoning_content) ?? str(delta.reasoning) ?? ''
      for (const [position, t] of arr(delta.tool_calls).entries()) {
        const tc = obj(t)
        if (!tc) continue
        const index = num(tc.index) ?? position
        const call = calls.get(index) ?? { id: '', name: '', args: '' }
        calls.set(index, call)
        const fn = obj(tc.function) ?? obj(tc.custom)
        if (!call.id) call.id = str(tc.id) ?? ''
        if (!call.name) call.name = str(fn?.name) ?? ''
        call.args += str(fn?.arguments) ?? str(fn?.input) ?? ''
      }
      if (choice.finish_reason !== undefined && choice.finish_reason !== null)
        finishReason = chatFinishReason(choice.finish_reason)
    }
  }
  if (errored && finishReason === null) finishReason = 'error'
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, c]) => toolCall(c.id, c.name, c.args))
  return {
    response: {
      model,
      requestId: id,
      parts: partsOf(reasoning, text, refusal),
      toolCalls,
      finishReason,
      usage,
    },
    // `finish_reason: "error"` (OpenRouter) is a generation that failed mid-stream, like an error chunk
    incomplete: !done || broken || errored || finishReason === 'error',
  }
}
