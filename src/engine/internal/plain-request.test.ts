import { describe, expect, it } from 'vitest'
import { exchangeRequestOf, toRequest } from './plain-request.ts'
import { readRequest } from './read-request.ts'

const URL_ = 'https://api.openai.com/v1/chat/completions?key=secret'

/** What `readRequest` makes of `new Request(input, init)`, the path the plain request must agree with. */
async function throughRequest(input: string | URL, init?: RequestInit) {
  const request = new Request(input, { ...init, ...(init?.body ? { duplex: 'half' } : {}) } as RequestInit)
  return { request, read: await readRequest(request) }
}

describe('exchangeRequestOf: a plain request reads as the full Request would', () => {
  const cases: [string, string | URL, RequestInit][] = [
    [
      'a JSON body',
      URL_,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,"é😀"]}' },
    ],
    ['no content type (undici adds text/plain)', URL_, { method: 'POST', body: '{"model":"m"}' }],
    ['an empty body', URL_, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' }],
    ['a byte-order mark, which decoding drops', URL_, { method: 'POST', body: '\uFEFF{"a":1}' }],
    ['a lone surrogate, which UTF-8 cannot carry', URL_, { method: 'POST', body: '{"a":"x\uD800y"}' }],
    ['a lower-case method', URL_, { method: 'post', body: '{}' }],
    ['PATCH as given', URL_, { method: 'PATCH', body: '{}' }],
    [
      'a URL input, unnormalized',
      new URL('HTTPS://API.openai.com/v1/../v1/x'),
      { method: 'POST', body: '{}' },
    ],
    [
      'headers as pairs, mixed case, repeated',
      URL_,
      {
        method: 'PUT',
        headers: [
          ['Accept', ' a '],
          ['accept', 'b'],
        ],
        body: '{}',
      },
    ],
  ]
  for (const [name, input, init] of cases) {
    it(name, async () => {
      const a = await throughRequest(input, init)
      const plain = exchangeRequestOf(input, init, { followSignal: true })
      expect(plain).not.toBeInstanceOf(Request)
      const b = await readRequest(plain)
      expect(b.wire).toEqual(a.read.wire)
      expect(b.bytes).toEqual(a.read.bytes)
      const rebuilt = toRequest(plain)
      expect([...rebuilt.headers]).toEqual([...a.request.headers])
      expect(rebuilt.method).toBe(a.request.method)
      expect(rebuilt.url).toBe(a.request.url)
      // The body the full Request would send (the one `throughRequest` made was read already).
      const fresh = new Request(input, { ...init, duplex: 'half' } as RequestInit)
      expect(await rebuilt.text()).toBe(await fresh.text())
    })
  }

  it('reads a plain record of headers without regard to case', async () => {
    const read = await readRequest({
      method: 'post',
      url: URL_,
      headers: { 'Content-Type': 'application/json', ACCEPT: ' x ' },
      body: '{"a":1}',
    })
    expect(read.wire).toMatchObject({
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'x' },
    })
    expect(read.wire.url).toBe('https://api.openai.com/v1/chat/completions')
    expect(read.wire.body).toEqual({ a: 1 })
  })

  it('leaves a replay without the signal, and keeps it otherwise', () => {
    const signal = new AbortController().signal
    const init = { method: 'POST', body: '{}', signal }
    expect(
      (exchangeRequestOf(URL_, init, { followSignal: false }) as { signal?: unknown }).signal,
    ).toBeUndefined()
    expect((exchangeRequestOf(URL_, init, { followSignal: true }) as { signal?: unknown }).signal).toBe(
      signal,
    )
  })

  it('hands what it cannot vouch for to the full Request, which throws as fetch would', () => {
    const post = { method: 'POST', body: '{}' }
    expect(exchangeRequestOf(URL_, { ...post, redirect: 'manual' }, { followSignal: true })).toBeInstanceOf(
      Request,
    )
    expect(
      exchangeRequestOf(URL_, { method: 'POST', body: new Uint8Array(1) }, { followSignal: true }),
    ).toBeInstanceOf(Request)
    expect(() => exchangeRequestOf('not a url', post, { followSignal: true })).toThrow(TypeError)
    expect(() => exchangeRequestOf('https://u:p@x.test/', post, { followSignal: true })).toThrow(TypeError)
    expect(() => exchangeRequestOf(URL_, { method: 'GET', body: '{}' }, { followSignal: true })).toThrow(
      TypeError,
    )
    expect(() => exchangeRequestOf(URL_, { method: 'CONNECT', body: '{}' }, { followSignal: true })).toThrow(
      TypeError,
    )
    expect(() =>
      exchangeRequestOf(URL_, { ...post, headers: { 'bad name': 'x' } }, { followSignal: true }),
    ).toThrow(TypeError)
  })
})
