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
import { arr, isRecord, num, str } from './anthropic-gemini-values.ts'
import { field, readGeminiPart } from './gemini-parts.ts'

/**
 * Gemini `GenerateContentResponse` → normalized response, plain or streamed. Only the first candidate
 * is read. Streamed text arrives cut at arbitrary points, so adjacent text parts (and adjacent thought
 * parts) are joined, in plain responses too, so that a stream and its plain twin read the same.
 */

const CONTENT_FILTER = ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']

/**
 * The neutral finish reason of a candidate's `finishReason`. `STOP` with function calls is
 * `tool_calls`; every reason that is neither a stop, a length cut nor a filter is an `error`.
 *
 * @example
 * finishFromGemini('STOP', true) // 'tool_calls'
 */
export function finishFromGemini(reason: unknown, hasToolCalls: boolean): FinishReason | null {
  if (typeof reason !== 'string') return null
  if (reason === 'STOP') return hasToolCalls ? 'tool_calls' : 'stop'
  if (reason === 'MAX_TOKENS') return 'length'
  if (
    CONTENT_FILTER.includes(reason) ||
    reason.startsWith('IMAGE_PROHIBITED') ||
    reason === 'IMAGE_RECITATION'
  ) {
    return 'content_filter'
  }
  return 'error'
}

/**
 * The `finishReason` a neutral one is sent as.
 *
 * @example
 * geminiFinishOf('content_filter') // 'SAFETY'
 */
export function geminiFinishOf(finish: FinishReason): string {
  const map: Record<FinishReason, string> = {
    stop: 'STOP',
    tool_calls: 'STOP',
    length: 'MAX_TOKENS',
    content_filter: 'SAFETY',
    error: 'OTHER',
  }
  return map[finish]
}

/**
 * Usage in the neutral shape: input is the prompt (cached content included) plus the tool-use prompt,
 * output is the candidates plus the thoughts, so input + output is the API's total.
 *
 * @example
 * usageFromGemini({ promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 20, totalTokenCount: 35 })
 * // { inputTokens: 10, outputTokens: 25, reasoningTokens: 20 }
 */
export function usageFromGemini(metadata: unknown): Usage | null {
  if (!isRecord(metadata)) return null
  const thoughts = num(metadata.thoughtsTokenCount)
  const cached = num(metadata.cachedContentTokenCount)
  const usage: Usage = {
    inputTokens: (num(metadata.promptTokenCount) ?? 0) + (num(metadata.toolUsePromptTokenCount) ?? 0),
    outputTokens: (num(metadata.candidatesTokenCount) ?? 0) + (thoughts ?? 0),
  }
  if (cached !== undefined) usage.cachedTokens = cached
  if (thoughts !== undefined) usage.reasoningTokens = thoughts
  return usage
}

/**
 * Reads a candidate's parts: text, thoughts and media into `parts` (adjacent text joined), function
 * calls into `toolCalls`, numbered in order for calls without an id.
 *
 * @example
 * readCandidateParts([{ text: 'Hel' }, { text: 'lo' }]).parts // [{ type: 'text', text: 'Hello' }]
 */
export function readCandidateParts(raw: readonly JsonValue[]): { parts: Part[]; toolCalls: ToolCallPart[] } {
  const parts: Part[] = []
  const toolCalls: ToolCallPart[] = []
  for (const item of raw) {
    const part = readGeminiPart(item, toolCalls.length)
    if (!part) continue
    if (part.type === 'tool_call') {
      toolCalls.push(part)
      continue
    }
    const last = parts.at(-1)
    if ((part.type === 'text' || part.type === 'reasoning') && last?.type === part.type) {
      parts[parts.length - 1] = { ...last, text: last.text + part.text }
    } else parts.push(part)
  }
  return { parts, toolCalls }
}

/**
 * The normalized form of a plain response body. A prompt blocked before any candidate
 * (`promptFeedback.blockReason`) is a `content_filter` finish with no content.
 *
 * @example
 * normalizeGeminiResponse({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP' }], modelVersion: 'gemini-2.5-flash', responseId: 'abc' })
 * // { model: 'gemini-2.5-flash', requestId: 'abc', parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop', usage: null }
 */
export function normalizeGeminiResponse(body: unknown): NormalizedResponse {
  const response = isRecord(body) ? body : {}
  const candidate = firstCandidate(response)
  const { parts, toolCalls } = readCandidateParts(contentParts(candidate))
  return {
    model: str(response.modelVersion) || null,
    requestId: str(response.responseId) || null,
    parts,
    toolCalls,
    finishReason: candidate
      ? finishFromGemini(candidate.finishReason, toolCalls.length > 0)
      : blocked(response),
    usage: usageFromGemini(response.usageMetadata),
  }
}

function firstCandidate(response: JsonObject): JsonObject | undefined {
  const candidate = arr(response.candidates)[0]
  return isRecord(candidate) ? candidate : undefined
}

function contentParts(candidate: JsonObject | undefined): JsonValue[] {
  const content = candidate?.content
  return isRecord(content) ? arr(content.parts) : []
}

function blocked(response: JsonObject): FinishReason | null {
  const feedback = field(response, 'promptFeedback')
  return isRecord(feedback) && feedback.blockReason !== undefined ? 'content_filter' : null
}

/**
 * Puts a streamed response together: each event is a whole `GenerateContentResponse`; parts add up,
 * the last finish reason, usage, model and id win. A stream is complete once a chunk gave a finish
 * reason (or said the prompt was blocked); an `error` payload or an event cut in the middle makes it
 * incomplete, with what arrived kept.
 *
 * @example
 * assembleGeminiStream(parseSse('data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}\n\n'))
 * // { response: { ..., parts: [{ type: 'text', text: 'Hi' }], finishReason: 'stop' }, incomplete: false }
 */
export function assembleGeminiStream(chunks: readonly SseChunk[]): AssembledStream {
  const raw: JsonValue[] = []
  let reason: JsonValue | undefined
  let finish: FinishReason | null = null
  let failed = false
  const last: JsonObject = {}
  for (const chunk of chunks) {
    const event = sseJson(chunk)
    if (!isRecord(event)) {
      failed = true
      continue
    }
    if (event.error !== undefined) {
      failed = true
      finish = 'error'
      continue
    }
    for (const key of ['modelVersion', 'responseId', 'usageMetadata'])
      if (event[key] !== undefined) last[key] = event[key]
    const candidate = firstCandidate(event)
    raw.push(...contentParts(candidate))
    if (candidate?.finishReason !== undefined) reason = candidate.finishReason
    else if (!candidate && blocked(event)) finish = 'content_filter'
  }
  const { parts, toolCalls } = readCandidateParts(raw)
  if (reason !== undefined && finish !== 'error') finish = finishFromGemini(reason, toolCalls.length > 0)
  return {
    response: {
      model: str(last.modelVersion) || null,
      requestId: str(last.responseId) || null,
      parts,
      toolCalls,
      finishReason: finish,
      usage: usageFromGemini(last.usageMetadata),
    },
    incomplete: failed || finish === null,
  }
}
