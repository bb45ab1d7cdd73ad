import type { JsonObject } from '../../case/schema/json.ts'
import type { NormalizedResponse, Part, Usage } from '../../case/schema/normalized.ts'
import type { SseChunk } from '../../case/schema/step.ts'
import type { WriteResponseOptions } from '../types.ts'
import { fragments } from './anthropic-gemini-values.ts'
import { syntheticCallId, writeGeminiPart } from './gemini-parts.ts'
import { geminiFinishOf } from './gemini-response.ts'

/**
 * Normalized response → what the Gemini API sends: a `GenerateContentResponse`, or the SSE stream of
 * them (`data:` lines only, no `event:` line; text cut across chunks, each function call whole in its
 * chunk, the finish reason and usage on the last chunk).
 */

const MADE_UP_ID = 'crashlab-response'

/**
 * The plain response body.
 *
 * @example
 * writeGeminiResponse({ model: 'gemini-2.5-flash', requestId: 'abc', parts: [{ type: 'text', text: 'Hi' }], toolCalls: [], finishReason: 'stop', usage: null }, {})
 * // { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP', index: 0 }], modelVersion: 'gemini-2.5-flash', responseId: 'abc' }
 */
export function writeGeminiResponse(response: NormalizedResponse, options: WriteResponseOptions): JsonObject {
  return chunk(response, options, geminiParts(response), true)
}

/**
 * The same response as the streamed chunks of `:streamGenerateContent?alt=sse`.
 *
 * @example
 * writeGeminiStream(response, {}).map((c) => c.data) // ['{"candidates":[…"text":"The answer"…]}', …, '{…"finishReason":"STOP"…,"usageMetadata":{…}}']
 */
export function writeGeminiStream(response: NormalizedResponse, options: WriteResponseOptions): SseChunk[] {
  const pieces: JsonObject[][] = []
  for (const part of geminiParts(response)) {
    if (typeof part.text === 'string') {
      for (const text of fragments(part.text)) pieces.push([{ ...part, text }])
    } else pieces.push([part])
  }
  if (pieces.length === 0) pieces.push([])
  return pieces.map((parts, i) => {
    const body = chunk(response, options, parts, i === pieces.length - 1)
    return { data: JSON.stringify(body), atMs: 0 }
  })
}

/** Text and thoughts, then media, then function calls (ids crashlab made up stay off the wire). */
function geminiParts(response: NormalizedResponse): JsonObject[] {
  const out: JsonObject[] = response.parts.filter(isOutput).map((p) => writeGeminiPart(p, false))
  response.toolCalls.forEach((call, i) => {
    out.push(writeGeminiPart(call, call.id !== syntheticCallId(call.name, i)))
  })
  return out
}

function isOutput(part: Part): boolean {
  return part.type === 'text' || part.type === 'reasoning' || part.type === 'media'
}

function chunk(
  response: NormalizedResponse,
  options: WriteResponseOptions,
  parts: JsonObject[],
  last: boolean,
): JsonObject {
  const candidate: JsonObject = {}
  if (parts.length > 0) candidate.content = { role: 'model', parts }
  if (last && response.finishReason !== null) candidate.finishReason = geminiFinishOf(response.finishReason)
  candidate.index = 0
  const body: JsonObject = { candidates: [candidate] }
  if (last && response.usage) body.usageMetadata = usageToGemini(response.usage)
  body.modelVersion = response.model ?? options.request?.model ?? ''
  body.responseId = options.id ?? response.requestId ?? MADE_UP_ID
  return body
}

/**
 * The `usageMetadata` of a neutral usage: the thoughts are taken out of the candidates count, as the
 * API reports them apart.
 *
 * @example
 * usageToGemini({ inputTokens: 10, outputTokens: 25, reasoningTokens: 20 })
 * // { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 20, totalTokenCount: 35 }
 */
export function usageToGemini(usage: Usage): JsonObject {
  const out: JsonObject = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - (usage.reasoningTokens ?? 0)),
  }
  if (usage.reasoningTokens !== undefined) out.thoughtsTokenCount = usage.reasoningTokens
  if (usage.cachedTokens !== undefined) out.cachedContentTokenCount = usage.cachedTokens
  out.totalTokenCount = usage.inputTokens + usage.outputTokens
  return out
}
