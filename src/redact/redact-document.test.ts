import { describe, expect, it } from 'vitest'
import { createRedactor } from './create-redactor.ts'
import { redactDocument } from './redact-document.ts'

const openai = () => `sk-${'proj'}-${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'}`

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const child of Object.values(v)) deepFreeze(child)
    Object.freeze(v)
  }
  return v
}

describe('sensitive keys', () => {
  it.each([
    'authorization',
    'Proxy-Authorization',
    'API.KEY',
    'x api key',
    'X-Api-Key',
    'setCookie',
    'Cookie',
    'password',
    'passwd',
    'client_secret',
    'refresh_token',
    'access_token',
    'connectionString',
    'x-goog-api-key',
    'openai-api-key',
    'anthropic-api-key',
    'x-auth-token',
    'x-amz-security-token',
    'private_key',
    'session_token',
    'OPENAI_API_KEY',
    'db_password',
  ])('replaces the whole value under %s', (key) => {
    const { value, records } = redactDocument({ [key]: { nested: ['anything', 1] }, other: 'kept' })
    expect(value).toEqual({ [key]: '[REDACTED:sensitive-key]', other: 'kept' })
    expect(records).toEqual([
      {
        path: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        rule: 'sensitive-key',
        marker: '[REDACTED:sensitive-key]',
      },
    ])
  })

  it('leaves the false-positive keys untouched', () => {
    const doc = {
      token_count: 12,
      secretary: 'Jane',
      authorization_mode: 'oauth',
      max_tokens: 100,
      tokens: 5,
      input_tokens: 3,
      nextPageToken: 'page-2',
      eos_token: '</s>',
    }
    const { value, records } = redactDocument(doc)
    expect(value).toBe(doc)
    expect(records).toEqual([])
  })

  it('keeps a logprobs token, which is a tokenizer token and not a credential', () => {
    const doc = { logprobs: { content: [{ token: 'Hello', logprob: -0.3 }] }, auth: { token: 'abc' } }
    const { value } = redactDocument(doc)
    expect(value.logprobs.content[0]!.token).toBe('Hello')
    expect(value.auth.token).toBe('[REDACTED:sensitive-key]')
  })

  it('redacts header pairs given as { name, value } objects and as [name, value] tuples', () => {
    const doc = {
      har: [
        { name: 'Authorization', value: 'opaque-credential' },
        { name: 'Accept', value: 'text/plain' },
      ],
      entries: [
        ['x-api-key', 'opaque-credential'],
        ['accept', 'text/plain'],
      ],
    }
    const { value } = redactDocument(doc)
    expect(value.har).toEqual([
      { name: 'Authorization', value: '[REDACTED:sensitive-key]' },
      { name: 'Accept', value: 'text/plain' },
    ])
    expect(value.entries).toEqual([
      ['x-api-key', '[REDACTED:sensitive-key]'],
      ['accept', 'text/plain'],
    ])
  })

  it('leaves a value that is already a marker as it is, with no record', () => {
    const doc = { headers: { authorization: '[REDACTED:synthetic-token]' } }
    const result = redactDocument(doc)
    expect(result.value).toBe(doc)
    expect(result.records).toHaveLength(0)
  })
})

describe('query strings', () => {
  it.each([
    [
      '?key=',
      'https://generativelanguage.googleapis.com/v1beta/models/x:streamGenerateContent?key=opaque123&alt=sse',
    ],
    ['&api_key=', 'https://api.example.com/v1?page=2&api_key=opaque123'],
    ['&token=', 'https://api.example.com/v1?page=2&token=opaque123'],
    ['access_token', 'https://api.example.com/cb#access_token=opaque123&state=s'],
    ['sig', 'https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig=opaque123%3D&se=2030'],
    ['X-Amz-Signature', 'https://b.s3.amazonaws.com/k?X-Amz-Signature=opaque123&X-Amz-Expires=60'],
    ['client_secret', 'POST /token?grant_type=x&client_secret=opaque123'],
    ['password', 'https://h/login?user=a&password=opaque123'],
  ])('replaces only the value of %s', (_key, url) => {
    const { value, records } = redactDocument({ url })
    expect(value.url).not.toContain('opaque123')
    expect(value.url).toContain('[REDACTED:query-secret]')
    expect(value.url.startsWith(url.slice(0, url.indexOf('opaque123')))).toBe(true)
    expect(records).toEqual([{ path: '/url', rule: 'query-secret', marker: '[REDACTED:query-secret]' }])
  })

  it('leaves ordinary query parameters alone', () => {
    const url = 'https://api.example.com/v1/items?page=2&max_tokens=100&monkey=banana&sort=desc'
    expect(redactDocument({ url }).value.url).toBe(url)
  })
})

describe('value patterns', () => {
  it('replaces a key inside prose, keeping the rest of the string', () => {
    const { value, records } = redactDocument({ content: `Use ${openai()} for the call.` })
    expect(value.content).toBe('Use [REDACTED:openai-key] for the call.')
    expect(records).toEqual([{ path: '/content', rule: 'openai-key', marker: '[REDACTED:openai-key]' }])
  })

  it('keeps the context of contextual formats', () => {
    const pw = 'S3cr3tPassw0rdValue'
    const doc = {
      dsn: `postgres://admin:${pw}@db.internal:5432/app`,
      auth: `curl -H "Authorization: Bearer ${'abcD1234efgh5678'}"`,
      local: 'http://localhost:3000/path?x=1',
    }
    const { value } = redactDocument(doc)
    expect(value.dsn).toBe('postgres://admin:[REDACTED:url-password]@db.internal:5432/app')
    expect(value.auth).toBe('curl -H "Authorization: Bearer [REDACTED:bearer-token]"')
    expect(value.local).toBe(doc.local)
  })

  it('does not take prose for an auth scheme', () => {
    const doc = { a: 'Bearer instruments are risky.', b: 'Basic Concepts of agents', c: 'the sk-learn docs' }
    expect(redactDocument(doc).value).toBe(doc)
  })

  it('finds secrets in strings that are JSON, and sensitive keys inside them', () => {
    const data = JSON.stringify({
      choices: [{ delta: { content: `key ${openai()}` } }],
      api_key: 'opaque-value',
    })
    const bodyText = JSON.stringify({ inner: data })
    const { value, records } = redactDocument({ chunks: [{ data }], bodyText })
    expect(JSON.parse(value.chunks[0]!.data)).toEqual({
      choices: [{ delta: { content: 'key [REDACTED:openai-key]' } }],
      api_key: '[REDACTED:sensitive-key]',
    })
    expect(value.bodyText).not.toContain('opaque-value')
    expect(JSON.parse(JSON.parse(value.bodyText).inner).api_key).toBe('[REDACTED:sensitive-key]')
    expect(records.map((r) => `${r.path} ${r.rule}`).sort()).toEqual([
      '/bodyText openai-key',
      '/bodyText sensitive-key',
      '/chunks/0/data openai-key',
      '/chunks/0/data sensitive-key',
    ])
  })

  it('keeps logprob tokens inside JSON text', () => {
    const data = JSON.stringify({ logprobs: { content: [{ token: 'Hello', logprob: -0.1 }] } })
    expect(redactDocument({ data }).value.data).toBe(data)
  })

  it('redacts a secret used as a key', () => {
    const { value, records } = redactDocument({ byKey: { [openai()]: 'tenant-a' } })
    expect(value.byKey).toEqual({ '[REDACTED:openai-key]': 'tenant-a' })
    expect(records[0]!.path).toBe('/byKey/[REDACTED:openai-key]')
  })

  it('is idempotent: a second pass changes nothing', () => {
    const first = redactDocument({
      a: `x ${openai()}`,
      url: 'https://h/?token=abcdef123456',
      b: { password: 'p' },
    })
    const second = redactDocument(first.value)
    expect(second.value).toBe(first.value)
    expect(second.records).toEqual([])
  })
})

describe('the document', () => {
  it('never mutates its input, even when frozen', () => {
    const doc = {
      headers: { authorization: 'Bearer abcdefgh12345678', accept: 'json' },
      messages: [{ role: 'user', content: `here: ${openai()}` }],
      list: [
        [1, 2],
        ['token', 'x'],
      ],
    }
    const before = structuredClone(doc)
    const { value } = redactDocument(deepFreeze(doc))
    expect(doc).toEqual(before)
    expect(value).not.toEqual(before)
  })

  it('shares unchanged subtrees instead of copying them', () => {
    const untouched = { big: Array.from({ length: 100 }, (_, i) => ({ i, text: 'plain' })) }
    const doc = { untouched, changed: { note: openai() } }
    const { value } = redactDocument(doc)
    expect(value.untouched).toBe(untouched)
    expect(value).not.toBe(doc)
    expect(value.changed).not.toBe(doc.changed)
  })

  it('escapes ~ and / in record paths (RFC 6901)', () => {
    const { records } = redactDocument({ 'a/b': { 'c~d': [{ '': `x ${openai()}` }] } })
    expect(records.map((r) => r.path)).toEqual(['/a~1b/c~0d/0/'])
  })

  it('redacts a top-level string, and passes other values through', () => {
    expect(redactDocument(`k=${openai()}`).value).toBe('k=[REDACTED:openai-key]')
    expect(redactDocument(42).value).toBe(42)
    expect(redactDocument(null).value).toBe(null)
  })

  it('accepts an explicit redactor', () => {
    const redactor = createRedactor({ useDefaults: false, keys: ['ticket'] })
    const { value } = redactDocument({ ticket: 'T-1', authorization: 'kept without defaults' }, { redactor })
    expect(value).toEqual({ ticket: '[REDACTED:sensitive-key]', authorization: 'kept without defaults' })
  })
})

describe('tool schemas', () => {
  it('keeps a JSON Schema property named like a secret, and still redacts values inside it', () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'login',
          parameters: {
            type: 'object',
            properties: {
              password: { type: 'string', description: 'the password' },
              api_key: { type: 'string' },
            },
            required: ['password'],
          },
        },
      },
    ]
    const doc = {
      tools,
      args: { password: 'hunter22' },
      leak: { properties: { token: 'opaque-token-value' } },
    }
    const { value } = redactDocument(doc)
    expect(value.tools).toBe(tools)
    expect(value.args.password).toBe('[REDACTED:sensitive-key]')
    expect(value.leak.properties.token).toBe('[REDACTED:sensitive-key]')
  })
})

describe('keys JSON.parse can produce', () => {
  it('keeps an own __proto__ key when a sibling is redacted', () => {
    const doc = JSON.parse('{"m":{"__proto__":{"x":1},"password":"hunter22"}}')
    const { value } = redactDocument(doc) as { value: { m: Record<string, unknown> } }
    expect(Object.keys(value.m)).toEqual(['__proto__', 'password'])
    expect(Object.getOwnPropertyDescriptor(value.m, '__proto__')?.value).toEqual({ x: 1 })
    expect(Object.getPrototypeOf(value.m)).toBe(Object.prototype)
    expect(value.m.password).toBe('[REDACTED:sensitive-key]')
  })
})
