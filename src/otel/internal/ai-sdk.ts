import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { Params, Part, ToolCallPart, Usage } from '../../case/schema/normalized.ts'
import { type FoundSpan, spanError, splitSystem, toolDefinitions } from './found-spans.ts'
import { usageFrom } from './gen-ai.ts'
import { aiSdkMessages, finishReasonOf, type Lost, toolCall } from './messages.ts'
import type { SpanReader } from './span-reader.ts'

/**
 * The Vercel AI SDK's own telemetry (`experimental_telemetry`): the provider call is the
 * `ai.generateText.doGenerate` / `ai.streamText.doStream` span (and `generateObject` / `streamObject`),
 * a tool execution is an `ai.toolCall` span. The outer `ai.generateText` span names the run through
 * `ai.telemetry.functionId`. Those spans also carry a few `gen_ai.*` attributes, read as fallbacks.
 */

const CALLS = [
  'ai.generateText.doGenerate',
  'ai.streamText.doStream',
  'ai.generateObject.doGenerate',
  'ai.streamObject.doStream',
]
const OUTER = ['ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.streamObject']

/** The span as an AI SDK model call, tool call or outer call; undefined for any other span. */
export function readAiSdkSpan(r: SpanReader): FoundSpan | undefined {
  const opId = r.span.attributes['ai.operationId']
  const op = typeof opId === 'string' ? opId : r.span.name.split(' ')[0]!
  if (op === 'ai.toolCall') {
    return {
      kind: 'tool',
      span: r.span,
      convention: 'ai-sdk',
      name: r.str('ai.toolCall.name') ?? 'unknown',
      callId: r.str('ai.toolCall.id'),
      args: r.json('ai.toolCall.args', 'ai.toolCall.input'),
      result: r.json('ai.toolCall.result', 'ai.toolCall.output'),
      error: spanError(r.span, 'ToolError'),
    }
  }
  if (OUTER.includes(op)) {
    return { kind: 'agent', span: r.span, convention: 'ai-sdk', name: r.str('ai.telemetry.functionId') }
  }
  if (!CALLS.includes(op)) return undefined
  r.note('ai.operationId')
  const lost: Lost = { parts: 0 }
  const prompt = r.json('ai.prompt.messages')
  const { system, messages } = splitSystem(aiSdkMessages(prompt, lost))
  const text = r.str('ai.response.text', 'ai.response.object')
  const reasoning = r.str('ai.response.reasoning')
  const calls = r.json('ai.response.toolCalls')
  const parts: Part[] = []
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning })
  if (text !== undefined && text !== '') parts.push({ type: 'text', text })
  const toolCalls: ToolCallPart[] = (Array.isArray(calls) ? calls : []).map((c) => {
    const call = (c ?? {}) as JsonObject
    return toolCall(call.toolCallId, call.toolName, (call.input ?? call.args) as JsonValue | undefined)
  })
  const provider = r.str('ai.model.provider', 'gen_ai.system') ?? 'unknown'
  return {
    kind: 'llm',
    span: r.span,
    convention: 'ai-sdk',
    // `openai.chat` → `openai`: the provider, without the AI SDK's API suffix.
    provider: provider.split('.')[0]!,
    operation: op.split('.').pop()!,
    request: {
      model: r.str('ai.model.id', 'gen_ai.request.model') ?? 'unknown',
      system,
      messages,
      tools: toolDefinitions(r.get('ai.prompt.tools')),
      params: paramsOf(r),
    },
    inputCaptured: prompt !== undefined,
    response: {
      model: r.str('ai.response.model', 'gen_ai.response.model') ?? null,
      requestId: r.str('ai.response.id', 'gen_ai.response.id') ?? null,
      parts,
      toolCalls,
      finishReason: finishReasonOf(r.get('ai.response.finishReason', 'gen_ai.response.finish_reasons')),
      usage: usageOf(r),
    },
    outputCaptured: text !== undefined || calls !== undefined,
    lost,
  }
}

function paramsOf(r: SpanReader): Params {
  const params: Params = {}
  const temperature = r.num('ai.settings.temperature')
  const topP = r.num('ai.settings.topP')
  const maxTokens = r.num('ai.settings.maxOutputTokens', 'ai.settings.maxTokens')
  const seed = r.num('ai.settings.seed')
  const choice = r.json('ai.prompt.toolChoice')
  if (temperature !== undefined) params.temperature = temperature
  if (topP !== undefined) params.topP = topP
  if (maxTokens !== undefined && Number.isInteger(maxTokens)) params.maxTokens = maxTokens
  if (seed !== undefined && Number.isInteger(seed)) params.seed = seed
  if (choice !== undefined) params.toolChoice = choice
  if (r.span.attributes['ai.operationId'] === 'ai.streamText.doStream') params.stream = true
  return params
}

function usageOf(r: SpanReader): Usage | null {
  return usageFrom(
    r.num('ai.usage.inputTokens', 'ai.usage.promptTokens', 'gen_ai.usage.input_tokens'),
    r.num('ai.usage.outputTokens', 'ai.usage.completionTokens', 'gen_ai.usage.output_tokens'),
    { cachedTokens: r.num('ai.usage.cachedInputTokens'), reasoningTokens: r.num('ai.usage.reasoningTokens') },
  )
}
