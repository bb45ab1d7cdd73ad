import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { NormalizedRequestSchema, NormalizedResponseSchema } from '../case/schema/normalized.ts'
import type { WireRequest, WireResponse } from '../case/schema/step.ts'
import { openaiChat } from './openai-chat.ts'
import { openaiResponses } from './openai-responses.ts'
import { parseSse } from './sse.ts'
import type { ProviderAdapter } from './types.ts'

/**
 * Golden transcripts: requests, responses and streams written by hand from the providers' documented
 * examples (API reference, guides, compatible servers' docs), each with the normalized result a
 * person worked out. A case is a folder: request.json, response.json, stream.sse (raw, for streams)
 * and expected.json ({ request, response, incomplete }).
 */

const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url))

interface GoldenCase {
  request: WireRequest
  response: WireResponse
  expected: { request: unknown; response: unknown; incomplete: boolean }
}

function load(api: string, name: string): GoldenCase {
  const dir = join(GOLDEN, api, name)
  const json = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'))
  const response: WireResponse = json('response.json')
  const sse = join(dir, 'stream.sse')
  if (existsSync(sse)) response.chunks = parseSse(readFileSync(sse, 'utf8'))
  return { request: json('request.json'), response, expected: json('expected.json') }
}

const SUITES: Array<[string, ProviderAdapter, string[]]> = [
  [
    'openai-chat',
    openaiChat,
    [
      'plain-text',
      'tool-call',
      'parallel-tool-calls',
      'stream-text',
      'stream-tool-calls',
      'stream-usage',
      'image-data-url',
      'length-cutoff',
      'stream-cut',
    ],
  ],
  [
    'openai-responses',
    openaiResponses,
    [
      'plain-text',
      'tool-call',
      'parallel-tool-calls',
      'stream-text',
      'stream-tool-calls',
      'reasoning',
      'image-data-url',
      'length-cutoff',
      'stream-cut',
    ],
  ],
]

for (const [api, adapter, required] of SUITES) {
  const cases = readdirSync(join(GOLDEN, api)).sort()

  describe(`${api} golden transcripts`, () => {
    it('covers the required cases', () => {
      expect(cases).toEqual(expect.arrayContaining(required))
    })

    it.each(cases)('%s: the request normalizes as worked out', (name) => {
      const { request, expected } = load(api, name)
      expect(adapter.matches(request)).toBe(true)
      expect(adapter.isStreaming(request)).toBe(existsSync(join(GOLDEN, api, name, 'stream.sse')))
      const normalized = adapter.normalizeRequest(request)
      expect(NormalizedRequestSchema.parse(normalized)).toStrictEqual(expected.request)
    })

    it.each(cases)('%s: the response normalizes as worked out', (name) => {
      const { response, expected } = load(api, name)
      const normalized = adapter.normalizeResponse(response)
      expect(normalized === null ? null : NormalizedResponseSchema.parse(normalized)).toStrictEqual(
        expected.response,
      )
      if (response.chunks)
        expect(adapter.assembleStream(response.chunks).incomplete).toBe(expected.incomplete)
      else expect(expected.incomplete).toBe(false)
    })

    it.each(cases)('%s: writeRequest gives the recorded request back, and round-trips', (name) => {
      const { request } = load(api, name)
      const normalized = adapter.normalizeRequest(request)
      const written = adapter.writeRequest(normalized, request)
      expect(written).toStrictEqual(request)
      expect(
        adapter.normalizeRequest(adapter.writeRequest(structuredClone(normalized), request)),
      ).toStrictEqual(normalized)
    })
  })
}
