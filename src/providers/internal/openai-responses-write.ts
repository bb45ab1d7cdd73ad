import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, NormalizedResponse, Usage } from '../../case/schema/normalized.ts'
import type { WriteResponseOptions } from '../types.ts'
import { argsTextOf, callIdOf, derivedId, obj } from './openai-common.ts'
import { writeToolChoice } from './openai-params.ts'

/**
 * Normalized response → a Responses API `response` object: consecutive text parts are one assistant
 * message item, each reasoning part one reasoning item (its text the summary; an opaque one carries an
 * `encrypted_content` stand-in), each tool call one function call item after them. Media output has
 * no item of its own here and is left out. Item ids are derived from the response id, so a written
 * response is the same every time.
 */

export const FIXED_CREATED_AT = 1_750_000_000

/** The response id: the caller's, else the normalized request id, else a fixed one. */
export function responseId(response: NormalizedResponse, options: WriteResponseOptions): string {
  return options.id ?? response.requestId ?? 'resp_crashlab'
}

/** The output items of a response, completed. */
export function outputItems(response: NormalizedResponse, seed: string): JsonObject[] {
  const items: JsonObject[] = []
  let run: string[] = []
  const flush = () => {
    if (run.length === 0) return
    const content = run.map((text) => ({ type: 'output_text', annotations: [], logprobs: [], text }))
    items.push({
      id: derivedId('msg_', seed, items.length),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content,
    })
    run = []
  }
  for (const part of response.parts) {
    if (part.type === 'text') run.push(part.text)
    else if (part.type === 'reasoning') {
      flush()
      const item: JsonObject = { id: derivedId('rs_', seed, items.length), type: 'reasoning', summary: [] }
      if (part.text !== '') item.summary = [{ type: 'summary_text', text: part.text }]
      if (part.opaque) item.encrypted_content = derivedId('enc_', seed, items.length)
      items.push(item)
    }
  }
  flush()
  response.toolCalls.forEach((call, i) => {
    items.push({
      id: derivedId('fc_', seed, i),
      type: 'function_call',
      status: 'completed',
      arguments: argsTextOf(call),
      call_id: callIdOf(call, seed, i),
      name: call.name,
    })
  })
  return items
}

function usageWire(usage: Usage): JsonObject {
  const out: JsonObject = { input_tokens: usage.inputTokens }
  if (usage.cachedTokens !== undefined) out.input_tokens_details = { cached_tokens: usage.cachedTokens }
  out.output_tokens = usage.outputTokens
  if (usage.reasoningTokens !== undefined)
    out.output_tokens_details = { reasoning_tokens: usage.reasoningTokens }
  out.total_tokens = usage.inputTokens + usage.outputTokens
  return out
}

/** `status` and its companions for a finish reason (null: still in progress, as a cut stream leaves it). */
function statusOf(response: NormalizedResponse): JsonObject {
  switch (response.finishReason) {
    case 'stop':
    case 'tool_calls':
      return { status: 'completed', error: null, incomplete_details: null }
    case 'length':
      return { status: 'incomplete', error: null, incomplete_details: { reason: 'max_output_tokens' } }
    case 'content_filter':
      return { status: 'incomplete', error: null, incomplete_details: { reason: 'content_filter' } }
    case 'error':
      return {
        status: 'failed',
        error: { code: 'server_error', message: 'The model failed to generate a response.' },
        incomplete_details: null,
      }
    default:
      return { status: 'in_progress', error: null, incomplete_details: null }
  }
}

/** The request settings a response echoes, from the request it answers (defaults when there is none). */
function echo(request: NormalizedRequest | undefined): JsonObject {
  const params = request?.params
  const extra = params?.extra ?? {}
  const system = request?.system ?? []
  const tools: JsonValue[] = (request?.tools ?? []).map((t) => ({
    type: 'function',
    name: t.name,
    ...(t.description === undefined ? {} : { description: t.description }),
    parameters: t.parameters,
    strict: false,
  }))
  return {
    instructions:
      system.length > 0 && system.every((p) => p.type === 'text')
        ? system.map((p) => p.text).join('\n\n')
        : null,
    max_output_tokens: params?.maxTokens ?? null,
    parallel_tool_calls: extra.parallel_tool_calls ?? true,
    previous_response_id: extra.previous_response_id ?? null,
    reasoning: extra.reasoning ?? { effort: null, summary: null },
    store: extra.store ?? true,
    temperature: params?.temperature ?? 1,
    text: { format: params?.responseFormat ?? { type: 'text' } },
    tool_choice: params?.toolChoice === undefined ? 'auto' : writeToolChoice(params.toolChoice, 'responses'),
    tools: [...tools, ...(Array.isArray(extra.tools) ? extra.tools : [])],
    top_p: params?.topP ?? 1,
    truncation: extra.truncation ?? 'disabled',
    user: null,
    metadata: obj(extra.metadata) ?? {},
  }
}

/**
 * The whole `response` object carrying `response`, as `POST /v1/responses` returns it.
 *
 * @example
 * writeResponsesResponse(response, { id: 'resp_1' }).status // 'completed'
 */
export function writeResponsesResponse(
  response: NormalizedResponse,
  options: WriteResponseOptions,
): JsonObject {
  const id = responseId(response, options)
  const created = options.created ?? FIXED_CREATED_AT
  const status = statusOf(response)
  const body: JsonObject = { id, object: 'response', created_at: created, ...status }
  body.completed_at = status.status === 'completed' ? created : null
  if (response.model !== null) body.model = response.model
  body.output = outputItems(response, id)
  Object.assign(body, echo(options.request))
  body.usage = response.usage ? usageWire(response.usage) : null
  return body
}
