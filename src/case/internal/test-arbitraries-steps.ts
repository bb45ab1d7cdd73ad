import fc from 'fast-check'
import type { NormalizedRequest, NormalizedResponse, Part, ToolCallPart } from '../schema/normalized.ts'
import type { SseChunk, Step, WireRequest, WireResponse } from '../schema/step.ts'
import {
  count,
  hex,
  instant,
  json,
  jsonNumber,
  jsonObject,
  nonNegative,
  recordKey,
  text,
  uniqueEntries,
} from './test-arbitraries-json.ts'

/** fast-check arbitraries for steps and their parts (test-only); see `test-arbitraries-json.ts` for the strings. */

const toolCallPart: fc.Arbitrary<ToolCallPart> = fc.record(
  { type: fc.constant('tool_call' as const), id: text, name: text, args: json, argsText: text },
  { requiredKeys: ['type', 'id', 'name', 'args'] },
)
export const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  toolCallPart,
  fc.record(
    { type: fc.constant('tool_result' as const), id: text, name: text, content: text, isError: fc.boolean() },
    { requiredKeys: ['type', 'id', 'content', 'isError'] },
  ),
  fc.record(
    {
      type: fc.constant('media' as const),
      mediaType: fc.constantFrom('image/png', 'audio/wav', 'application/pdf'),
      bytes: fc.option(count, { nil: null }),
      ref: text,
      sha256: hex(64),
    },
    { requiredKeys: ['type', 'mediaType', 'bytes'] },
  ),
  fc.record(
    { type: fc.constant('reasoning' as const), text, opaque: fc.boolean() },
    { requiredKeys: ['type', 'text'] },
  ),
)

const headers = fc.oneof(
  uniqueEntries(
    fc.constantFrom('content-type', 'x-request-id', 'retry-after', 'anthropic-version', 'user-agent'),
    text,
    4,
  ),
  uniqueEntries(recordKey, text, 3),
)

export const wireRequest: fc.Arbitrary<WireRequest> = fc.record(
  {
    method: fc.constantFrom('GET', 'POST'),
    url: fc.constantFrom(
      'https://api.openai.com/v1/chat/completions',
      'http://127.0.0.1:4010/v1/messages?x=1',
    ),
    headers,
    body: fc.option(json, { nil: null }),
    bodyText: text,
  },
  { requiredKeys: ['method', 'url', 'headers', 'body'] },
)

const sseChunk: fc.Arbitrary<SseChunk> = fc.record(
  { event: text, id: text, data: text, atMs: nonNegative },
  { requiredKeys: ['data', 'atMs'] },
)

export const wireResponse: fc.Arbitrary<WireResponse> = fc.record(
  {
    status: fc.integer({ min: 100, max: 599 }),
    headers,
    body: fc.option(json, { nil: null }),
    bodyText: text,
    chunks: fc.array(sseChunk, { maxLength: 5 }),
  },
  { requiredKeys: ['status', 'headers', 'body'] },
)

const usage = fc.record(
  { inputTokens: count, outputTokens: count, cachedTokens: count, reasoningTokens: count },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
)

export const normalizedRequest: fc.Arbitrary<NormalizedRequest> = fc.record({
  model: text,
  system: fc.array(part, { maxLength: 2 }),
  messages: fc.array(
    fc.record(
      {
        role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
        parts: fc.array(part, { maxLength: 3 }),
        name: text,
      },
      { requiredKeys: ['role', 'parts'] },
    ),
    { maxLength: 4 },
  ),
  tools: fc.array(
    fc.record(
      { name: text, description: text, parameters: jsonObject },
      { requiredKeys: ['name', 'parameters'] },
    ),
    {
      maxLength: 2,
    },
  ),
  params: fc.record(
    {
      temperature: jsonNumber,
      topP: jsonNumber,
      maxTokens: fc.integer(),
      stop: fc.array(text, { maxLength: 2 }),
      seed: fc.integer(),
      toolChoice: json,
      responseFormat: json,
      stream: fc.boolean(),
      extra: uniqueEntries(recordKey, json, 2),
    },
    { requiredKeys: [] },
  ),
})

export const normalizedResponse: fc.Arbitrary<NormalizedResponse> = fc.record({
  model: fc.option(text, { nil: null }),
  requestId: fc.option(text, { nil: null }),
  parts: fc.array(part, { maxLength: 3 }),
  toolCalls: fc.array(toolCallPart, { maxLength: 2 }),
  finishReason: fc.option(fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'error'), {
    nil: null,
  }),
  usage: fc.option(usage, { nil: null }),
})

export const stepError = fc.record(
  { name: text, message: text, code: text, status: fc.integer({ min: 100, max: 599 }) },
  { requiredKeys: ['name', 'message'] },
)
export const cost = fc.record(
  { usd: nonNegative, catalog: text, catalogVersion: text, priceDate: text },
  { requiredKeys: ['usd'] },
)
const stepBase = {
  index: fc.constant(0),
  timing: fc.record({ startedAt: instant, durationMs: nonNegative }),
  error: fc.option(stepError, { nil: null }),
}

const llmStep = fc.record(
  {
    ...stepBase,
    type: fc.constant('llm' as const),
    provider: fc.constantFrom('openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'),
    endpoint: text,
    request: fc.record({
      wire: wireRequest,
      normalized: fc.option(normalizedRequest, { nil: null }),
      requestHash: hex(64),
    }),
    response: fc.option(
      fc.record({
        wire: wireResponse,
        normalized: fc.option(normalizedResponse, { nil: null }),
        incomplete: fc.boolean(),
      }),
      { nil: null },
    ),
    cost: fc.option(cost, { nil: null }),
  },
  { requiredKeys: ['index', 'timing', 'error', 'type', 'provider', 'endpoint', 'request', 'response'] },
)
const httpStep = fc.record({
  ...stepBase,
  type: fc.constant('http' as const),
  label: text,
  request: wireRequest,
  response: fc.option(wireResponse, { nil: null }),
})
const toolStep = fc.record(
  {
    ...stepBase,
    type: fc.constant('tool' as const),
    name: text,
    callId: text,
    args: json,
    result: json,
    sideEffects: fc.boolean(),
    blocked: fc.boolean(),
  },
  { requiredKeys: ['index', 'timing', 'error', 'type', 'name', 'args', 'sideEffects'] },
)

/** Steps of all three types, numbered from 0 as the schema requires. */
export const steps: fc.Arbitrary<Step[]> = fc
  .array(fc.oneof(llmStep, httpStep, toolStep), { maxLength: 6 })
  .map((xs) => xs.map((s, index) => ({ ...s, index }) as Step))
