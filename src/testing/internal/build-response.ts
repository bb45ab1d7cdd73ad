import type {
  NormalizedRequest,
  NormalizedResponse,
  Part,
  ToolCallPart,
  Usage,
} from '../../case/schema/normalized.ts'
import type { ProviderId } from '../../providers/types.ts'
import type { ScriptedTurn } from '../types.ts'

/** What a built response depends on besides the turn. */
export interface BuildContext {
  /** The 0-based model-call number: ids are made from it, so a re-run serves the same ids. */
  index: number
  api: ProviderId
  request: NormalizedRequest
  /** The provider's default model, for a request that names none. */
  defaultModel: string
}

/** What a `cut_stream` turn with no content of its own streams, so that there is something to cut. */
export const CUT_STREAM_TEXT =
  'This answer was going to be longer, but the connection dropped before it ended.'

/**
 * The normalized response a turn stands for: reasoning, then text, then tool calls; usage estimated
 * from text lengths unless the turn gives it; finish reason from the tool calls.
 *
 * @example
 * buildResponse({ text: 'hi' }, { index: 0, api: 'openai-chat', request, defaultModel: 'm' }).finishReason // 'stop'
 */
export function buildResponse(turn: ScriptedTurn, ctx: BuildContext): NormalizedResponse {
  const parts: Part[] = []
  if (turn.reasoning !== undefined) parts.push({ type: 'reasoning', text: turn.reasoning })
  if (turn.text !== undefined) parts.push({ type: 'text', text: turn.text })
  const empty = turn.text === undefined && turn.reasoning === undefined && (turn.toolCalls ?? []).length === 0
  if (empty && 'fault' in turn && turn.fault.type === 'cut_stream')
    parts.push({ type: 'text', text: CUT_STREAM_TEXT })
  const toolCalls: ToolCallPart[] = (turn.toolCalls ?? []).map((call, i) => ({
    type: 'tool_call',
    id: call.id ?? toolCallId(ctx.api, ctx.index, i),
    name: call.name,
    args: call.args,
  }))
  return {
    model: turn.model ?? (ctx.request.model || ctx.defaultModel),
    // Gemini sends no request-id header: its adapter reads the body's responseId as the request id.
    requestId: ctx.api === 'gemini' ? responseId(ctx.api, ctx.index) : scriptedRequestId(ctx.index),
    parts,
    toolCalls,
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: mergeUsage(estimateUsage(ctx.request, parts, toolCalls), turn.usage),
  }
}

/**
 * The request id a scripted answer carries (in the `x-request-id` / `request-id` header and the
 * normalized response), from the model-call number.
 *
 * @example
 * scriptedRequestId(3) // 'req_scripted_3'
 */
export function scriptedRequestId(index: number): string {
  return `req_scripted_${index}`
}

/**
 * A response id in the style of each API, so that code which checks prefixes (`chatcmpl-`, `resp_`,
 * `msg_`) keeps working against the scripted provider.
 *
 * @example
 * responseId('anthropic-messages', 2) // 'msg_scripted_2'
 */
export function responseId(api: ProviderId, index: number): string {
  switch (api) {
    case 'openai-chat':
      return `chatcmpl-scripted-${index}`
    case 'openai-responses':
      return `resp_scripted_${index}`
    case 'anthropic-messages':
      return `msg_scripted_${index}`
    case 'gemini':
      return `scripted-${index}`
  }
}

function toolCallId(api: ProviderId, index: number, position: number): string {
  return api === 'anthropic-messages'
    ? `toolu_scripted_${index}_${position}`
    : `call_scripted_${index}_${position}`
}

/** About four characters a token: the usual rule of thumb, and deterministic, which is what tests need. */
function tokens(chars: number): number {
  return Math.ceil(chars / 4)
}

function estimateUsage(request: NormalizedRequest, parts: Part[], toolCalls: ToolCallPart[]): Usage {
  let input = 0
  for (const part of request.system) input += partChars(part)
  for (const message of request.messages) for (const part of message.parts) input += partChars(part)
  for (const tool of request.tools) input += tool.name.length + JSON.stringify(tool.parameters).length
  let output = 0
  let reasoning = 0
  for (const part of parts) {
    if (part.type === 'reasoning') reasoning += part.text.length
    else output += partChars(part)
  }
  for (const call of toolCalls) output += partChars(call)
  const usage: Usage = { inputTokens: Math.max(1, tokens(input)), outputTokens: tokens(output + reasoning) }
  if (reasoning > 0) usage.reasoningTokens = tokens(reasoning)
  return usage
}

function partChars(part: Part): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text.length
    case 'tool_call':
      return part.name.length + (part.argsText ?? JSON.stringify(part.args)).length
    case 'tool_result':
      return part.content.length
    case 'media':
      // What an image or a file costs depends on the provider; a fixed share keeps the estimate stable.
      return 1000
  }
}

/**
 * The turn's counts over the estimate. Output tokens include reasoning tokens in every API's usage, so
 * an estimated reasoning count is capped at a given output count: otherwise the written usage would
 * be impossible (Gemini's `candidatesTokenCount` would go negative) and would not read back as served.
 */
function mergeUsage(estimate: Usage, given: Partial<Usage> | undefined): Usage {
  const out: Usage = { ...estimate }
  for (const [key, value] of Object.entries(given ?? {})) {
    if (value !== undefined) out[key as keyof Usage] = value
  }
  if (given?.reasoningTokens === undefined && out.reasoningTokens !== undefined) {
    out.reasoningTokens = Math.min(out.reasoningTokens, out.outputTokens)
  }
  return out
}
