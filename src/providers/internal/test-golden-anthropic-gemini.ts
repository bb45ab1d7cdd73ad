import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type NormalizedRequest,
  NormalizedRequestSchema,
  type NormalizedResponse,
  NormalizedResponseSchema,
} from '../../case/schema/normalized.ts'
import type { WireRequest, WireResponse } from '../../case/schema/step.ts'
import { formatSse, parseSse } from '../sse.ts'
import type { ProviderAdapter } from '../types.ts'

/**
 * Golden transcripts for the adapter tests: one folder per case under `golden/<api>/`, written by hand
 * from the providers' documented examples. `request.json` is the wire request, `response.json` a plain
 * response (status, headers, body), `stream.sse` the raw event stream, `expected.json` what they
 * normalize to.
 */

/** One golden case, loaded. */
export interface GoldenCase {
  name: string
  request: WireRequest
  response?: WireResponse
  stream?: string
  expected: {
    request: NormalizedRequest
    response: NormalizedResponse | null
    /** For `stream.sse`: whether the stream ended early, errored or was cut. */
    incomplete: boolean
  }
}

/**
 * Every case of one API, sorted by name.
 *
 * @example
 * loadGoldenCases('anthropic-messages').map((c) => c.name) // ['cut-stream', 'error-event', ...]
 */
export function loadGoldenCases(api: string): GoldenCase[] {
  const root = join(import.meta.dirname, '..', 'golden', api)
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const dir = join(root, name)
      const json = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'))
      const golden: GoldenCase = { name, request: json('request.json'), expected: json('expected.json') }
      if (existsSync(join(dir, 'response.json'))) golden.response = json('response.json')
      if (existsSync(join(dir, 'stream.sse'))) golden.stream = readFileSync(join(dir, 'stream.sse'), 'utf8')
      return golden
    })
}

/** What differs between the APIs in the shared golden checks. */
export interface GoldenSuiteOptions {
  /** Whether a written stream of `response` reads back as incomplete (Gemini: no finish reason). */
  writtenStreamIncomplete(response: NormalizedResponse): boolean
  /** Whether a plain body can carry `response` whole (Anthropic: no error finish, no unparsable args). */
  plainCarries(response: NormalizedResponse): boolean
}

/**
 * The checks every golden case goes through: routing, request normalization and its schema, the
 * no-op rewrite, plain and streamed response normalization, and the written response read back.
 *
 * @example
 * describeGolden(anthropicMessages, 'anthropic-messages', { writtenStreamIncomplete: () => false, plainCarries: () => true })
 */
export function describeGolden(adapter: ProviderAdapter, api: string, options: GoldenSuiteOptions): void {
  const cases = loadGoldenCases(api)
  describe(`${api} golden transcripts`, () => {
    it('has the cases the docs document', () => {
      expect(cases.length).toBeGreaterThanOrEqual(8)
    })

    describe.each(cases.map((c) => [c.name, c] as const))('%s', (_, golden) => {
      it('is routed to the adapter, streaming exactly when a stream was recorded', () => {
        expect(adapter.matches(golden.request)).toBe(true)
        expect(adapter.isStreaming(golden.request)).toBe(golden.stream !== undefined)
      })

      it('normalizes the request', () => {
        const normalized = adapter.normalizeRequest(golden.request)
        expect(normalized).toEqual(golden.expected.request)
        expect(NormalizedRequestSchema.safeParse(normalized).success).toBe(true)
      })

      it('writes the request back unchanged, and the rewrite normalizes the same', () => {
        const normalized = adapter.normalizeRequest(golden.request)
        const written = adapter.writeRequest(normalized, golden.request)
        // Byte for byte, key order included: a rewrite that changed nothing must not show in a diff.
        expect(JSON.stringify(written)).toBe(JSON.stringify(golden.request))
        expect(adapter.normalizeRequest(written)).toEqual(normalized)
      })

      // A case has a plain response, a stream, or both: only the tests for what it has are declared.
      if (golden.response !== undefined)
        it('normalizes the plain response', () => {
          const normalized = adapter.normalizeResponse(golden.response!)
          expect(normalized).toEqual(golden.expected.response)
          expect(NormalizedResponseSchema.safeParse(normalized).success).toBe(true)
        })

      if (golden.stream !== undefined)
        it('assembles the stream', () => {
          const chunks = parseSse(golden.stream!)
          expect(adapter.assembleStream(chunks)).toEqual({
            response: golden.expected.response,
            incomplete: golden.expected.incomplete,
          })
          expect(adapter.normalizeResponse({ status: 200, headers: {}, body: null, chunks })).toEqual(
            golden.expected.response,
          )
        })

      it('writes the response back as the API sends it', () => {
        const response = golden.expected.response!
        const stream = adapter.writeStream(response, {})
        expect(adapter.assembleStream(stream)).toEqual({
          response,
          incomplete: options.writtenStreamIncomplete(response),
        })
        const reparsed = parseSse(stream.map(formatSse).join(''))
        expect(adapter.assembleStream(reparsed).response).toEqual(response)
        if (options.plainCarries(response)) {
          const body = adapter.writeResponse(response, {})
          expect(adapter.normalizeResponse({ status: 200, headers: {}, body })).toEqual(response)
        }
      })
    })
  })
}
