import { matchesPost, normalizeWireResponse, streams } from './internal/openai-adapter-base.ts'
import { normalizeResponsesRequest } from './internal/openai-responses-request.ts'
import { normalizeResponsesBody } from './internal/openai-responses-response.ts'
import { assembleResponsesStream } from './internal/openai-responses-stream.ts'
import { writeResponsesResponse } from './internal/openai-responses-write.ts'
import { writeResponsesRequest } from './internal/openai-responses-write-request.ts'
import { writeResponsesStream } from './internal/openai-responses-write-stream.ts'
import type { ProviderAdapter } from './types.ts'

/**
 * OpenAI Responses (`POST …/responses`, exactly: `/responses/{id}` and `/responses/input_tokens` are
 * other operations, labelled as plain HTTP calls).
 *
 * Conventions: `instructions` and system/developer input items are the `system` parts; a string
 * `input` is one user message; consecutive assistant-side items (reasoning, assistant messages,
 * function calls) are one assistant message and each `function_call_output` one tool message; a
 * reasoning item is a reasoning part holding its summary, `opaque` when it carries
 * `encrypted_content`; the finish reason comes from `status` (completed: `tool_calls` when the model
 * called a function, else `stop`; incomplete: `length` or `content_filter`; failed: `error`).
 *
 * @example
 * const normalized = openaiResponses.normalizeRequest({
 *   method: 'POST',
 *   url: 'https://api.openai.com/v1/responses',
 *   headers: {},
 *   body: { model: 'gpt-5', instructions: 'Be brief.', input: 'Hi', reasoning: { effort: 'low' } },
 * })
 * normalized.system       // [{ type: 'text', text: 'Be brief.' }]
 * normalized.params.extra // { reasoning: { effort: 'low' } }
 */
export const openaiResponses: ProviderAdapter = {
  id: 'openai-responses',
  endpoint: 'responses',
  matches: (request) => matchesPost(request, '/responses'),
  isStreaming: streams,
  normalizeRequest: normalizeResponsesRequest,
  normalizeResponse: (wire) => normalizeWireResponse(wire, normalizeResponsesBody, assembleResponsesStream),
  assembleStream: assembleResponsesStream,
  writeRequest: writeResponsesRequest,
  writeResponse: writeResponsesResponse,
  writeStream: writeResponsesStream,
}
