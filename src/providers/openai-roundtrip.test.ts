import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../case/schema/json.ts'
import {
  type NormalizedRequest,
  type NormalizedResponse,
  NormalizedResponseSchema,
  type Part,
  type ToolCallPart,
} from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import {
  OPENAI_CHAT_CONVERSATION,
  OPENAI_RESPONSES_CONVERSATION,
} from './internal/test-conversation-openai.ts'
import { openaiChat } from './openai-chat.ts'
import { openaiResponses } from './openai-responses.ts'
import { formatSse, parseSse } from './sse.ts'
import type { ProviderAdapter } from './types.ts'

/**
 * Round trips as properties: a response written by an adapter (plain or streamed, framed as SSE
 * text) reads back as the same normalized response, for every response the API's wire can carry;
 * a normalized request changed at random and written over a recorded request reads back as changed.
 */

const text = fc.string({
  minLength: 1,
  maxLength: 24,
  unit: fc.constantFrom('a', 'b', ' ', 'é', '"', '\n', '{', '🙂'),
})
const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
/** JSON as it survives JSON.stringify/parse (no -0). */
const json: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)))
const notJson = text.filter((t) => {
  try {
    JSON.parse(t)
    return false
  } catch {
    return true
  }
})

const toolCalls: fc.Arbitrary<ToolCallPart[]> = fc
  .uniqueArray(
    fc.record({
      id: id.map((s) => `call_${s}`),
      name: id,
      args: fc.oneof(
        json.map((args) => ({ args })),
        notJson.map((argsText) => ({ args: null, argsText })),
      ),
    }),
    { selector: (c) => c.id, maxLength: 3 },
  )
  .map((calls) => calls.map(({ id, name, args }) => ({ type: 'tool_call' as const, id, name, ...args })))

const usage = fc.option(
  fc
    .record(
      { inputTokens: fc.nat(), outputTokens: fc.nat(), cachedTokens: fc.nat(), reasoningTokens: fc.nat() },
      { requiredKeys: ['inputTokens', 'outputTokens'] },
    )
    .map((u) => ({ ...u })), // fast-check records have no prototype; the adapters build plain objects
  { nil: null },
)

/** What a chat message can carry: one reasoning text (compatible servers) and one content text. */
const chatResponse: fc.Arbitrary<NormalizedResponse> = fc
  .record({
    model: fc.option(id, { nil: null }),
    requestId: id.map((s) => `chatcmpl-${s}`),
    parts: fc.tuple(fc.option(text), fc.option(text)).map(([reasoning, answer]) => {
      const parts: Part[] = []
      if (reasoning !== null) parts.push({ type: 'reasoning', text: reasoning })
      if (answer !== null) parts.push({ type: 'text', text: answer })
      return parts
    }),
    toolCalls,
    finishReason: fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'error', null),
    usage,
  })
  .map((r) => ({ ...r }))

/** What Responses output can carry; its finish reason follows from status and the function calls. */
const responsesResponse: fc.Arbitrary<NormalizedResponse> = fc
  .record({
    model: fc.option(id, { nil: null }),
    requestId: id.map((s) => `resp_${s}`),
    parts: fc.array(
      fc.oneof(
        text.map((t): Part => ({ type: 'text', text: t })),
        fc.tuple(fc.option(text), fc.boolean()).map(
          ([t, opaque]): Part => ({
            type: 'reasoning',
            text: t ?? '',
            ...(opaque ? { opaque: true } : {}),
          }),
        ),
      ),
      { maxLength: 4 },
    ),
    toolCalls,
    ending: fc.constantFrom('done', 'length', 'content_filter', 'error', null),
    usage,
  })
  .map(({ ending, ...r }) => ({
    ...r,
    finishReason: ending === 'done' ? (r.toolCalls.length > 0 ? 'tool_calls' : 'stop') : ending,
    // a response still in progress (a cut stream) has no usage on the wire
    usage: ending === null ? null : r.usage,
  }))

const INCLUDE_USAGE: NormalizedRequest = {
  model: 'm',
  system: [],
  messages: [],
  tools: [],
  params: { stream: true, extra: { stream_options: { include_usage: true } } },
}

const cases: Array<[string, ProviderAdapter, fc.Arbitrary<NormalizedResponse>]> = [
  ['openai-chat', openaiChat, chatResponse],
  ['openai-responses', openaiResponses, responsesResponse],
]

describe.each(cases)('%s: written responses read back the same', (_, adapter, arbitrary) => {
  it('the arbitrary makes valid normalized responses', () => {
    fc.assert(fc.property(arbitrary, (r) => void NormalizedResponseSchema.parse(r)))
  })

  it('normalizeResponse(writeResponse(r)) = r', () => {
    fc.assert(
      fc.property(arbitrary, (r) => {
        const body = adapter.writeResponse(r, { request: INCLUDE_USAGE })
        expect(
          adapter.normalizeResponse({ status: 200, headers: {}, body: JSON.parse(JSON.stringify(body)) }),
        ).toStrictEqual(r)
      }),
      { numRuns: 300 },
    )
  })

  it('assembleStream(writeStream(r)) = r, through SSE text; incomplete when cut (no finish reason) or errored', () => {
    fc.assert(
      fc.property(arbitrary, (r) => {
        const sse = adapter.writeStream(r, { request: INCLUDE_USAGE }).map(formatSse).join('')
        const assembled = adapter.assembleStream(parseSse(sse))
        const incomplete = r.finishReason === null || r.finishReason === 'error'
        expect(assembled).toStrictEqual({ response: r, incomplete })
      }),
      { numRuns: 300 },
    )
  })

  it('the response id is the one given; other ids derive from it and are stable', () => {
    fc.assert(
      fc.property(arbitrary, id, (r, given) => {
        const first = adapter.writeStream(r, { id: given, request: INCLUDE_USAGE })
        expect(adapter.writeStream(r, { id: given, request: INCLUDE_USAGE })).toStrictEqual(first)
        expect(adapter.assembleStream(first).response.requestId).toBe(given)
      }),
      { numRuns: 50 },
    )
  })
})

describe('openai-chat streams carry usage only when the request asked', () => {
  it('without stream_options.include_usage there is no usage chunk', () => {
    fc.assert(
      fc.property(chatResponse, (r) => {
        const chunks = openaiChat.writeStream(r, {})
        expect(chunks.some((c) => c.data.includes('"usage"'))).toBe(false)
        expect(openaiChat.assembleStream(chunks).response).toStrictEqual({ ...r, usage: null })
        if (r.finishReason !== null) expect(chunks.at(-1)).toStrictEqual({ data: '[DONE]', atMs: 0 })
        expect(chunks.every((c) => c.event === undefined)).toBe(true)
      }),
      { numRuns: 100 },
    )
  })
})

// ---------------------------------------------------------------------------------------------
// writeRequest: random patches over recorded requests

const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url))
function goldenRequests(api: string): WireRequest[] {
  return readdirSync(join(GOLDEN, api)).map((name) =>
    JSON.parse(readFileSync(join(GOLDEN, api, name, 'request.json'), 'utf8')),
  )
}

/**
 * A patch of the kind forks and fixes apply: a changed text, the conversation cut before its last
 * message, a new system prompt, new parameters and provider options.
 */
const patch = fc.record({
  text: fc.option(text),
  at: fc.nat(),
  truncate: fc.boolean(),
  system: fc.option(text),
  temperature: fc.option(fc.integer({ min: 0, max: 20 }).map((t) => t / 10)),
  maxTokens: fc.option(fc.integer({ min: 1, max: 4096 })),
  extra: fc.option(
    fc
      .dictionary(fc.constantFrom('user', 'metadata', 'store', 'top_logprobs'), json, { maxKeys: 2 })
      .map((d) => ({ ...d })),
  ),
})

type Patch = typeof patch extends fc.Arbitrary<infer T> ? T : never

function applyPatch(n: NormalizedRequest, p: Patch): NormalizedRequest {
  const out = structuredClone(n)
  if (p.text !== null) {
    const texts = out.messages.flatMap((m) => m.parts.filter((part) => part.type === 'text'))
    const target = texts[p.at % Math.max(texts.length, 1)]
    if (target) target.text = p.text
  }
  if (p.truncate && out.messages.length > 1) out.messages.pop()
  if (p.system !== null) out.system = [{ type: 'text', text: p.system }]
  if (p.temperature !== null) out.params.temperature = p.temperature
  if (p.maxTokens !== null) out.params.maxTokens = p.maxTokens
  if (p.extra !== null) out.params.extra = p.extra
  return out
}

describe.each([
  ['openai-chat', openaiChat, [...goldenRequests('openai-chat'), OPENAI_CHAT_CONVERSATION]],
  [
    'openai-responses',
    openaiResponses,
    [...goldenRequests('openai-responses'), OPENAI_RESPONSES_CONVERSATION],
  ],
] as const)('%s: writeRequest round trip', (_, adapter, requests) => {
  it('normalizeRequest(writeRequest(normalizeRequest(w), w)) = normalizeRequest(w) for every recorded request', () => {
    for (const w of requests) {
      const n = adapter.normalizeRequest(w)
      expect(adapter.normalizeRequest(adapter.writeRequest(n, w))).toStrictEqual(n)
    }
  })

  it('a patched request reads back as patched, keeping method, URL and headers', () => {
    fc.assert(
      fc.property(fc.constantFrom(...requests), patch, (w, p) => {
        const changed = applyPatch(adapter.normalizeRequest(w), p)
        const written = adapter.writeRequest(changed, w)
        // An empty `extra` removes every provider option, and reads back as none.
        const expected = structuredClone(changed)
        if (expected.params.extra && Object.keys(expected.params.extra).length === 0)
          delete expected.params.extra
        expect(adapter.normalizeRequest(written)).toStrictEqual(expected)
        expect({ method: written.method, url: written.url, headers: written.headers }).toStrictEqual({
          method: w.method,
          url: w.url,
          headers: w.headers,
        })
      }),
      { numRuns: 400 },
    )
  })
})
