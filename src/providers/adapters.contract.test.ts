import { readdirSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonObject, JsonValue } from '../case/schema/json.ts'
import {
  type NormalizedRequest,
  NormalizedRequestSchema,
  type NormalizedResponse,
  NormalizedResponseSchema,
  type Part,
  type ToolCallPart,
  type Usage,
} from '../case/schema/normalized.ts'
import type { SseChunk, WireRequest, WireResponse } from '../case/schema/step.ts'
import * as providers from './index.ts'
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_SYSTEM,
  CONVERSATION_TOOLS,
} from './internal/test-conversation.ts'
import { ANTHROPIC_CONVERSATION, GEMINI_CONVERSATION } from './internal/test-conversation-anthropic-gemini.ts'
import {
  OPENAI_CHAT_CONVERSATION,
  OPENAI_RESPONSES_CONVERSATION,
} from './internal/test-conversation-openai.ts'
import { type GoldenCase, loadGoldenCases } from './internal/test-golden-anthropic-gemini.ts'
import { ADAPTERS, findAdapter, getAdapter } from './registry.ts'
import { formatSse, parseSse } from './sse.ts'
import type { ProviderAdapter, ProviderId } from './types.ts'

/**
 * The contract every `ProviderAdapter` keeps, run over the registry itself: an adapter added to
 * `ADAPTERS` runs every case below, and an adapter left out of it fails the registry checks. What
 * differs per API is only its wire (below, keyed by id, so a new `ProviderId` does not compile until
 * its wire is given); every property is the same for all.
 *
 * The response properties run over what all four APIs can carry: reasoning, text, tool calls with
 * object arguments, every finish reason, usage with cached input and reasoning output inside the
 * totals. What only some APIs carry (unparsable tool arguments, opaque reasoning, cache writes,
 * media) is tested beside each adapter.
 */

/** The wire of one API, as its servers and SDKs send it. */
interface ApiWire {
  /** The shared test conversation, written as the API's SDK sends it. */
  conversation: WireRequest
  /** The event a stream that fails on the server ends with. */
  streamError: SseChunk
  /** The JSON body of an error answer (status 4xx/5xx). */
  errorBody: JsonValue
}

const WIRE: Record<ProviderId, ApiWire> = {
  'openai-chat': {
    conversation: OPENAI_CHAT_CONVERSATION,
    // OpenAI and OpenRouter send an error object in place of a chunk, with no event line.
    streamError: {
      data: '{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}',
      atMs: 0,
    },
    errorBody: {
      error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    },
  },
  'openai-responses': {
    conversation: OPENAI_RESPONSES_CONVERSATION,
    streamError: {
      event: 'error',
      data: '{"type":"error","sequence_number":99,"code":"server_error","message":"The server had an error while processing your request.","param":null}',
      atMs: 0,
    },
    errorBody: {
      error: { message: 'Invalid model', type: 'invalid_request_error', param: 'model', code: null },
    },
  },
  'anthropic-messages': {
    conversation: ANTHROPIC_CONVERSATION,
    streamError: {
      event: 'error',
      data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      atMs: 0,
    },
    errorBody: { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } },
  },
  gemini: {
    conversation: GEMINI_CONVERSATION,
    // With alt=sse a failing stream sends the error object as its last data line.
    streamError: {
      data: '{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}',
      atMs: 0,
    },
    errorBody: { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } },
  },
}

/**
 * Contract cases an adapter fails because of a known bug, by adapter and case name: the case runs as
 * `it.fails`, so fixing the bug turns it red until it is taken out of this list.
 */
// A case listed here runs as `it.fails`, naming a bug of that adapter that the contract found; none now.
const KNOWN_BUGS: Partial<Record<ProviderId, readonly string[]>> = {}

function contractIt(adapter: ProviderAdapter, name: string, fn: () => void): void {
  if (KNOWN_BUGS[adapter.id]?.includes(name)) it.fails(name, fn)
  else it(name, fn)
}

// ---------------------------------------------------------------------------------------------
// Arbitraries: responses all four APIs can carry

const text = fc.string({
  minLength: 1,
  maxLength: 24,
  unit: fc.constantFrom('a', 'b', ' ', 'é', '"', '\\', '\n', '{', '🙂'),
})
const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
/** JSON as it survives JSON.stringify/parse (no -0, no undefined). */
const json: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)))
const args: fc.Arbitrary<JsonObject> = fc
  .dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), json, { maxKeys: 4 })
  .map((d) => JSON.parse(JSON.stringify(d)))

const toolCalls: fc.Arbitrary<ToolCallPart[]> = fc
  .uniqueArray(fc.record({ id: id.map((s) => `call_${s}`), name: id, args }), {
    selector: (c) => c.id,
    maxLength: 3,
  })
  .map((calls) => calls.map((c) => ({ type: 'tool_call' as const, ...c })))

/** Cached input inside the input count, reasoning inside the output count, as every API reports them. */
const usage: fc.Arbitrary<Usage> = fc
  .record({
    inputTokens: fc.nat({ max: 2_000_000 }),
    outputTokens: fc.nat({ max: 200_000 }),
    cached: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
    reasoning: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  })
  .map(({ inputTokens, outputTokens, cached, reasoning }) => {
    const u: Usage = { inputTokens, outputTokens }
    if (cached !== null) u.cachedTokens = Math.floor(inputTokens * cached)
    if (reasoning !== null) u.reasoningTokens = Math.floor(outputTokens * reasoning)
    return u
  })

/** Finish reasons as the APIs derive them: a completed turn with tool calls is `tool_calls`. */
type Ending = 'done' | 'length' | 'content_filter' | 'error'

function responseOf(
  ending: Ending,
  fields: Omit<NormalizedResponse, 'finishReason' | 'usage'> & { usage: Usage | null },
): NormalizedResponse {
  const finishReason = ending === 'done' ? (fields.toolCalls.length > 0 ? 'tool_calls' : 'stop') : ending
  return { ...fields, finishReason }
}

const responseWith = (endings: readonly Ending[]): fc.Arbitrary<NormalizedResponse> =>
  fc
    .record({
      model: id,
      requestId: id,
      reasoning: fc.option(text),
      answer: fc.option(text),
      toolCalls,
      ending: fc.constantFrom(...endings),
      usage,
    })
    .map(({ reasoning, answer, ending, ...fields }) => {
      const parts: Part[] = []
      if (reasoning !== null) parts.push({ type: 'reasoning', text: reasoning })
      if (answer !== null) parts.push({ type: 'text', text: answer })
      return responseOf(ending, { ...fields, parts })
    })

/** Responses that end properly. */
const finished = responseWith(['done', 'length', 'content_filter'])
/** Any ending, a failed generation included. */
const anyEnding = responseWith(['done', 'length', 'content_filter', 'error'])

/** Chat streams carry usage only when asked: every written stream answers a request that asked. */
const ASKS_FOR_USAGE: NormalizedRequest = {
  model: 'model-from-request',
  system: [],
  messages: [],
  tools: [],
  params: { stream: true, extra: { stream_options: { include_usage: true } } },
}
const OPTIONS = { request: ASKS_FOR_USAGE }

/** The stream as a client reads it: framed as SSE text and parsed back. */
function throughSse(chunks: readonly SseChunk[]): SseChunk[] {
  return parseSse(chunks.map(formatSse).join(''))
}

function plain(body: JsonValue): WireResponse {
  return { status: 200, headers: {}, body: JSON.parse(JSON.stringify(body)) }
}

/** The index of the first event after which the stream has said how it ended; -1 if it never does. */
function finishIndex(adapter: ProviderAdapter, chunks: readonly SseChunk[]): number {
  return chunks.findIndex(
    (_, i) => adapter.assembleStream(chunks.slice(0, i + 1)).response.finishReason !== null,
  )
}

/** A request patched the way forks and fixes patch: a text, the last message cut, system, parameters. */
const patch = fc.record({
  text: fc.option(text),
  at: fc.nat(),
  truncate: fc.boolean(),
  system: fc.option(text),
  temperature: fc.option(fc.integer({ min: 0, max: 20 }).map((t) => t / 10)),
  maxTokens: fc.option(fc.integer({ min: 1, max: 4096 })),
})

function applyPatch(n: NormalizedRequest, p: typeof patch extends fc.Arbitrary<infer T> ? T : never) {
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
  return out
}

/** A golden case's response as recorded: a stream's events are the response's chunks. */
function recorded(golden: GoldenCase): WireResponse | undefined {
  if (golden.stream === undefined) return golden.response
  return { ...(golden.response ?? { status: 200, headers: {} }), body: null, chunks: parseSse(golden.stream) }
}

// ---------------------------------------------------------------------------------------------

/** The ids the suite below was declared for, filled while the file is collected. */
const covered: string[] = []

describe('the adapter registry', () => {
  it('lists each adapter once, one per API id, and getAdapter finds each', () => {
    const ids = ADAPTERS.map((a) => a.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(Object.keys(WIRE).sort())
    for (const adapter of ADAPTERS) expect(getAdapter(adapter.id)).toBe(adapter)
  })

  it('holds every adapter the providers entry exports', () => {
    const exported = Object.values(providers).filter(
      (value): value is ProviderAdapter =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as ProviderAdapter).id === 'string' &&
        typeof (value as ProviderAdapter).writeStream === 'function',
    )
    expect(exported.length).toBeGreaterThan(0)
    for (const adapter of exported) expect(ADAPTERS).toContain(adapter)
  })

  it('has golden transcripts for every adapter and none for an API it does not know', () => {
    const folders = readdirSync(new URL('./golden/', import.meta.url)).sort()
    expect(folders).toEqual(ADAPTERS.map((a) => a.id).sort())
  })

  it('is the list the contract below is declared over', () => {
    // Tests run after the whole file is collected: a hand-written list of adapters would miss one here.
    expect(covered).toEqual(ADAPTERS.map((a) => a.id))
  })
})

describe.each(ADAPTERS.map((a) => [a.id, a] as const))('ProviderAdapter contract: %s', (_, adapter) => {
  covered.push(adapter.id)
  const wire = WIRE[adapter.id]
  const goldens = loadGoldenCases(adapter.id)
  const requests = [wire.conversation, ...goldens.map((g) => g.request)]

  describe('request round trip', () => {
    it('reads the shared conversation as the neutral one, and the registry routes it here', () => {
      expect(findAdapter(wire.conversation)).toBe(adapter)
      const n = adapter.normalizeRequest(wire.conversation)
      expect({ system: n.system, messages: n.messages, tools: n.tools }).toStrictEqual({
        system: CONVERSATION_SYSTEM,
        messages: CONVERSATION_MESSAGES,
        tools: CONVERSATION_TOOLS,
      })
    })

    it('writes every recorded request back byte for byte when nothing changed', () => {
      for (const w of requests) {
        const n = adapter.normalizeRequest(w)
        expect(NormalizedRequestSchema.safeParse(n).success).toBe(true)
        const written = adapter.writeRequest(n, w)
        // A rewrite that changed nothing must not show in a cassette diff: key order included.
        expect(JSON.stringify(written)).toBe(JSON.stringify(w))
        expect(adapter.normalizeRequest(written)).toStrictEqual(n)
      }
    })

    it('reads a patched request back as patched, keeping method, URL and headers', () => {
      fc.assert(
        fc.property(fc.constantFrom(...requests), patch, (w, p) => {
          const changed = applyPatch(adapter.normalizeRequest(w), p)
          const written = adapter.writeRequest(changed, w)
          expect(adapter.normalizeRequest(written)).toStrictEqual(changed)
          expect([written.method, written.url, written.headers]).toStrictEqual([w.method, w.url, w.headers])
        }),
        { numRuns: 150 },
      )
    })
  })

  describe('response round trip', () => {
    it('normalizeResponse(writeResponse(r)) = r, with the given id as request id', () => {
      fc.assert(
        fc.property(finished, fc.option(id), (r, given) => {
          const body = adapter.writeResponse(r, given === null ? OPTIONS : { ...OPTIONS, id: given })
          const back = adapter.normalizeResponse(plain(body))
          expect(back).toStrictEqual(given === null ? r : { ...r, requestId: given })
          expect(NormalizedResponseSchema.safeParse(back).success).toBe(true)
        }),
        { numRuns: 200 },
      )
    })

    it('writes plain JSON, the same each time', () => {
      fc.assert(
        fc.property(anyEnding, (r) => {
          const body = adapter.writeResponse(r, OPTIONS)
          expect(JSON.parse(JSON.stringify(body))).toStrictEqual(body)
          expect(adapter.writeResponse(r, OPTIONS)).toStrictEqual(body)
        }),
        { numRuns: 50 },
      )
    })

    it.each(goldens.map((g) => [g.name, g] as const))(
      'reads the recorded transcript %s as expected',
      (_, g) => {
        expect(findAdapter(g.request)).toBe(adapter)
        expect(adapter.isStreaming(g.request)).toBe(g.stream !== undefined)
        expect(adapter.normalizeRequest(g.request)).toEqual(g.expected.request)
        const response = recorded(g)
        if (response) expect(adapter.normalizeResponse(response)).toEqual(g.expected.response)
      },
    )
  })

  describe('stream write and assemble', () => {
    it('assembleStream(writeStream(r)) = r, complete, through SSE text', () => {
      fc.assert(
        fc.property(finished, (r) => {
          const chunks = adapter.writeStream(r, OPTIONS)
          expect(chunks.every((c) => c.atMs === 0)).toBe(true)
          expect(adapter.assembleStream(throughSse(chunks))).toStrictEqual({ response: r, incomplete: false })
          expect(adapter.normalizeResponse({ status: 200, headers: {}, body: null, chunks })).toStrictEqual(r)
        }),
        { numRuns: 200 },
      )
    })

    it('writes a failed generation as one that reads back failed', () => {
      fc.assert(
        fc.property(anyEnding, (r) => {
          const failed = { ...r, finishReason: 'error' as const }
          expect(
            adapter.assembleStream(throughSse(adapter.writeStream(failed, OPTIONS))).response,
          ).toStrictEqual(failed)
        }),
        { numRuns: 50 },
      )
    })

    it('writes the same events each time, the response id the one given', () => {
      fc.assert(
        fc.property(finished, id, (r, given) => {
          const first = adapter.writeStream(r, { ...OPTIONS, id: given })
          expect(adapter.writeStream(r, { ...OPTIONS, id: given })).toStrictEqual(first)
          expect(adapter.assembleStream(first).response.requestId).toBe(given)
        }),
        { numRuns: 50 },
      )
    })

    it('reads a stream cut before its last event as incomplete', () => {
      fc.assert(
        fc.property(finished, fc.nat(), (r, at) => {
          const chunks = adapter.writeStream(r, OPTIONS)
          const cut = chunks.slice(0, at % chunks.length)
          expect(adapter.assembleStream(throughSse(cut)).incomplete).toBe(true)
        }),
        { numRuns: 100 },
      )
    })

    it('reads a stream whose last event is cut in the middle of its JSON as incomplete', () => {
      fc.assert(
        fc.property(finished, fc.nat(), (r, at) => {
          const chunks = adapter.writeStream(r, OPTIONS)
          const json = chunks.flatMap((c, i) => (c.data.startsWith('{') ? [i] : []))
          const i = json[at % json.length]!
          const half = {
            ...chunks[i]!,
            data: chunks[i]!.data.slice(0, Math.floor(chunks[i]!.data.length / 2)),
          }
          expect(adapter.assembleStream([...chunks.slice(0, i), half]).incomplete).toBe(true)
        }),
        { numRuns: 100 },
      )
    })

    contractIt(adapter, 'writes a response that never said why it ended as a cut stream', () => {
      fc.assert(
        fc.property(finished, (r) => {
          const cut = { ...r, finishReason: null, usage: null }
          const assembled = adapter.assembleStream(throughSse(adapter.writeStream(cut, OPTIONS)))
          expect(assembled.incomplete).toBe(true)
          expect(assembled.response.finishReason).toBeNull()
          expect([assembled.response.parts, assembled.response.toolCalls]).toStrictEqual([
            r.parts,
            r.toolCalls,
          ])
        }),
        { numRuns: 50 },
      )
    })
  })

  describe('error shapes', () => {
    it.each([400, 401, 404, 429, 500, 529])('reads an error answer (status %i) as no response', (status) => {
      expect(adapter.normalizeResponse({ status, headers: {}, body: wire.errorBody })).toBeNull()
    })

    it('reads a gateway page in front of the API (502, HTML) as no response', () => {
      const page = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n</html>\r\n'
      expect(adapter.normalizeResponse({ status: 502, headers: {}, body: null, bodyText: page })).toBeNull()
    })

    it('reads the error event of a failing stream as an incomplete error, keeping what arrived', () => {
      fc.assert(
        fc.property(finished, fc.nat(), (r, at) => {
          const chunks = throughSse(adapter.writeStream(r, OPTIONS))
          // Cut before the stream said how it ended: the server failed in the middle.
          const end = finishIndex(adapter, chunks)
          const before = chunks.slice(0, at % (end + 1))
          const failed = adapter.assembleStream([...before, wire.streamError])
          const arrived = adapter.assembleStream(before).response
          expect(failed.incomplete).toBe(true)
          expect(failed.response.finishReason).toBe('error')
          expect([failed.response.parts, failed.response.toolCalls]).toStrictEqual([
            arrived.parts,
            arrived.toolCalls,
          ])
        }),
        { numRuns: 100 },
      )
    })
  })

  describe('usage', () => {
    it('reads written usage back the same, plain and streamed', () => {
      fc.assert(
        fc.property(finished, usage, (r, u) => {
          const response = { ...r, usage: u }
          expect(
            adapter.normalizeResponse(plain(adapter.writeResponse(response, OPTIONS)))?.usage,
          ).toStrictEqual(u)
          expect(adapter.assembleStream(adapter.writeStream(response, OPTIONS)).response.usage).toStrictEqual(
            u,
          )
        }),
        { numRuns: 200 },
      )
    })

    it('counts cached input and reasoning output inside the totals in every recorded response', () => {
      const usages = goldens.flatMap((g) => (g.expected.response?.usage ? [g.expected.response.usage] : []))
      expect(usages.length).toBeGreaterThan(0)
      for (const u of usages) {
        expect(usageInTotals(u)).toBe(true)
      }
      for (const g of goldens) {
        const response = recorded(g)
        const read = response ? adapter.normalizeResponse(response) : null
        if (read?.usage) expect(read.usage).toStrictEqual(g.expected.response?.usage)
      }
    })
  })
})

function usageInTotals(u: Usage): boolean {
  return (
    (u.cachedTokens ?? 0) + (u.cacheWriteTokens ?? 0) <= u.inputTokens &&
    (u.reasoningTokens ?? 0) <= u.outputTokens
  )
}
