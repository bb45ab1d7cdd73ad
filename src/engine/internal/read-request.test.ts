import { describe, expect, it } from 'vitest'
import { readRequest, requestOf } from './read-request.ts'

const URL_ = 'https://api.openai.com/v1/chat/completions?key=secret'

/** What `readRequest` makes of `new Request(input, init)`, the path `requestOf` must agree with. */
async function throughRequest(input: string | URL | Request, init?: RequestInit) {
  const request = new Request(input, { ...init, ...(init?.body ? { duplex: 'half' } : {}) } as RequestInit)
  return { request, read: await readRequest(request) }
}

async function throughRequestOf(input: string | URL | Request, init?: RequestInit) {
  const request = requestOf(input, init)
  return { request, read: await readRequest(request) }
}

describe('requestOf: a string body kept beside the Request reads as the full Request would', () => {
  const cases: [string, RequestInit][] = [
    [
      'a JSON body',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,"é😀"]}' },
    ],
    ['no content type (undici adds text/plain)', { method: 'POST', body: '{"model":"m"}' }],
    ['plain text', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }],
    ['an empty body', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' }],
    ['a byte-order mark, which decoding drops', { method: 'POST', body: '\uFEFF{"a":1}' }],
    ['a lone surrogate, which UTF-8 cannot carry', { method: 'POST', body: '{"a":"x\uD800y"}' }],
    [
      'a lone surrogate in text',
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x\uDC00' },
    ],
    ['a lower-case method', { method: 'post', body: '{}' }],
    [
      'headers as a Headers',
      { method: 'POST', headers: new Headers({ accept: 'application/json' }), body: '{}' },
    ],
    ['bytes, not a string', { method: 'POST', body: new TextEncoder().encode('{"a":1}') }],
    ['no body', { method: 'GET' }],
  ]
  for (const [name, init] of cases) {
    it(name, async () => {
      const a = await throughRequest(URL_, init)
      const b = await throughRequestOf(URL_, init)
      expect(b.read.wire).toEqual(a.read.wire)
      expect(b.read.bytes).toEqual(a.read.bytes)
      expect([...b.request.headers]).toEqual([...a.request.headers])
      expect(b.request.method).toBe(a.request.method)
      expect(b.request.url).toBe(a.request.url)
    })
  }

  it('keeps the caller signal', async () => {
    const controller = new AbortController()
    const request = requestOf(URL_, { method: 'POST', body: '{}', signal: controller.signal })
    controller.abort()
    expect(request.signal.aborted).toBe(true)
  })

  it('for a replay, leaves an AbortSignal out; anything else still throws as the constructor does', () => {
    const controller = new AbortController()
    const request = requestOf(
      URL_,
      { method: 'POST', body: '{}', signal: controller.signal },
      { followSignal: false },
    )
    controller.abort()
    expect(request.signal.aborted).toBe(false)
    const bad = { method: 'POST', body: '{}', signal: {} } as unknown as RequestInit
    expect(() => requestOf(URL_, bad, { followSignal: false })).toThrow(TypeError)
  })

  it('a Request as input is read from its own body', async () => {
    const input = new Request(URL_, { method: 'POST', body: '{"a":2}' })
    const b = await throughRequestOf(input)
    expect(b.read.wire.body).toEqual({ a: 2 })
  })

  it('throws what new Request throws: a body on a GET, an invalid URL', () => {
    expect(() => requestOf(URL_, { method: 'GET', body: '{}' })).toThrow(TypeError)
    expect(() => requestOf(URL_, { body: '{}' })).toThrow(TypeError)
    expect(() => requestOf('not a url', { method: 'POST', body: '{}' })).toThrow(TypeError)
  })
})
