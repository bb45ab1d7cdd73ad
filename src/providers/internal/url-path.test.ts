import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { urlPath } from './url-path.ts'

describe('urlPath', () => {
  it.each([
    ['https://api.openai.com/v1/chat/completions', '/v1/chat/completions'],
    ['https://api.openai.com/v1/chat/completions/', '/v1/chat/completions'],
    ['http://127.0.0.1:8080/v1/messages?beta=true', '/v1/messages'],
    ['https://x.test', ''],
    [
      'https://x.test/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    ],
    ['https://x.test/a%2Fb/c', '/a%2Fb/c'],
    ['https://x.test/a/../b', '/b'],
  ])('%s → %s', (url, path) => {
    expect(urlPath(url)).toBe(path)
    expect(urlPath(new URL(url))).toBe(path)
  })

  it('is undefined for what does not parse', () => {
    expect(urlPath('not a url')).toBeUndefined()
  })

  it('agrees with the URL parser on web URLs', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        expect(urlPath(url)).toBe(new URL(url).pathname.replace(/\/+$/, ''))
      }),
      { numRuns: 500 },
    )
  })
})
