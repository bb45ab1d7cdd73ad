import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodedViews } from './decoded-views.ts'

/** The raw text a decoded range came from. */
function rawOf(raw: string, view: { starts: Int32Array }, start: number, end: number): string {
  return raw.slice(view.starts[start], view.starts[end])
}

describe('decodedViews', () => {
  it('has no view for a string with neither a backslash nor a percent sign', () => {
    expect(decodedViews('plain text, sk-abc')).toEqual([])
  })

  it('undoes JSON escapes and maps each character back', () => {
    const raw = 'a\\nsk-1\\"x\\u0041'
    const [view] = decodedViews(raw)
    expect(view?.text).toBe('a\nsk-1"xA')
    expect(rawOf(raw, view!, 2, 6)).toBe('sk-1')
    expect(rawOf(raw, view!, 1, 2)).toBe('\\n')
    expect(rawOf(raw, view!, 8, 9)).toBe('\\u0041')
  })

  it('undoes percent-encoding of ASCII, and leaves `+` and multi-byte sequences', () => {
    const raw = 'postgres%3A%2F%2Fu%3Apw%40host?q=a+b&c=%C3%A9'
    const view = decodedViews(raw).find((v) => v.text.startsWith('postgres://'))
    expect(view?.text).toBe('postgres://u:pw@host?q=a+b&c=%C3%A9')
    const at = view!.text.indexOf('pw')
    expect(rawOf(raw, view!, at, at + 2)).toBe('pw')
  })

  it('composes views: a percent-encoded value inside escaped JSON', () => {
    const raw = JSON.stringify(JSON.stringify({ url: 'x?token=a%2Fb' }))
    const texts = decodedViews(raw).map((v) => v.text)
    expect(texts).toContain('"{"url":"x?token=a/b"}"')
  })

  it('maps every view character onto the raw text it decodes (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (s) => {
        for (const raw of [JSON.stringify(s), encodeURIComponent(s), JSON.stringify(encodeURIComponent(s))]) {
          for (const view of decodedViews(raw)) {
            expect(view.starts.length).toBe(view.text.length + 1)
            for (let i = 0; i < view.text.length; i++) {
              expect(view.starts[i]!).toBeLessThan(view.starts[i + 1]!)
            }
            expect(view.starts[view.text.length]).toBeLessThanOrEqual(raw.length)
          }
        }
      }),
    )
  })
})
