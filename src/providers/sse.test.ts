import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatSse, parseSse, SseParser, sseJson } from './sse.ts'

describe('SSE parsing', () => {
  it('reads events with and without event lines, ids and comments', () => {
    const text =
      ': keep-alive\n\nevent: message_start\ndata: {"type":"message_start"}\n\nid: 7\ndata: {"a":1}\n\ndata: [DONE]\n\n'
    expect(parseSse(text)).toEqual([
      { event: 'message_start', data: '{"type":"message_start"}', atMs: 0 },
      { id: '7', data: '{"a":1}', atMs: 0 },
      { data: '[DONE]', atMs: 0 },
    ])
  })

  it('joins multi-line data and accepts CRLF and a missing space after the colon', () => {
    expect(parseSse('data:line one\r\ndata: line two\r\n\r\n')).toEqual([
      { data: 'line one\nline two', atMs: 0 },
    ])
  })

  it('keeps an event cut before its blank line (a cut stream keeps what arrived)', () => {
    const parser = new SseParser()
    expect(parser.push('data: {"x":1}\n\ndata: {"y"', 3)).toEqual([{ data: '{"x":1}', atMs: 3 }])
    expect(parser.end(8)).toEqual([{ data: '{"y"', atMs: 8 }])
  })

  it('stamps each event with the time its last piece arrived', () => {
    const parser = new SseParser()
    expect(parser.push('data: a', 1)).toEqual([])
    expect(parser.push('bc\n', 2)).toEqual([])
    expect(parser.push('\n', 5)).toEqual([{ data: 'abc', atMs: 5 }])
  })

  it('parses what formatSse frames, however the bytes are split', () => {
    const chunk = fc.record(
      {
        event: fc.stringMatching(/^[a-z_.]{1,12}$/),
        data: fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s)),
      },
      { requiredKeys: ['data'] },
    )
    fc.assert(
      fc.property(
        fc.array(chunk, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (chunks, cuts) => {
          const text = chunks.map(formatSse).join('')
          const parser = new SseParser()
          const got = []
          let at = 0
          for (const cut of [...cuts.map((c) => c % (text.length + 1))].sort((a, b) => a - b)) {
            got.push(...parser.push(text.slice(at, cut)))
            at = cut
          }
          got.push(...parser.push(text.slice(at)), ...parser.end())
          expect(got).toEqual(chunks.map((c) => ({ ...c, atMs: 0 })))
        },
      ),
    )
  })

  it('sseJson gives the payload, or undefined for [DONE] and cut JSON', () => {
    expect(sseJson({ data: '{"type":"ping"}' })).toEqual({ type: 'ping' })
    expect(sseJson({ data: '[DONE]' })).toBeUndefined()
    expect(sseJson({ data: '{"type":"pi' })).toBeUndefined()
  })
})
