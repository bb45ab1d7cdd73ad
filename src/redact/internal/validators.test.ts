import { describe, expect, it } from 'vitest'
import { seededTokens } from './test-tokens.ts'
import {
  base62,
  crc32,
  hasValidTokenChecksum,
  isBasicCredential,
  isElided,
  isJwt,
  isPlaceholder,
  isValidBech32,
  longestSequence,
  looksLikeCredential,
  looksLikeWords,
  looksRandom,
} from './validators.ts'

const tokens = seededTokens

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const HEX = '0123456789abcdef'

describe('crc32 and base62', () => {
  it('computes the standard CRC-32 check value', () => {
    expect(crc32('123456789')).toBe(0xcbf43926)
    expect(crc32('')).toBe(0)
  })

  it('writes base62 with digits first and left-pads', () => {
    expect(base62(0, 6)).toBe('000000')
    expect(base62(61, 2)).toBe('0z')
    expect(base62(62, 2)).toBe('10')
    expect(base62(0xffffffff, 6)).toBe('4gfFC3')
  })
})

describe('hasValidTokenChecksum', () => {
  const body = tokens(B62, 30, 1, 7)[0]!
  const token = `gh${'p_'}${body}${base62(crc32(body), 6)}`

  it('accepts a token whose last six characters are the CRC-32 of the random part', () => {
    expect(hasValidTokenChecksum(token)).toBe(true)
    expect(hasValidTokenChecksum(`np${'m_'}${body}${base62(crc32(body), 6)}`)).toBe(true)
  })

  it('rejects one changed character, and other lengths', () => {
    const flipped = token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11)
    expect(hasValidTokenChecksum(flipped)).toBe(false)
    expect(hasValidTokenChecksum(`${token}x`)).toBe(false)
  })
})

describe('isValidBech32', () => {
  it('accepts the BIP 173 test vectors and rejects a changed character', () => {
    expect(isValidBech32('A12UEL5L')).toBe(true)
    expect(isValidBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw')).toBe(true)
    expect(isValidBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx')).toBe(false)
    expect(isValidBech32('A12uEL5L')).toBe(false)
  })
})

describe('randomness checks never reject random tokens', () => {
  it.each([
    [B62, 16],
    [B62, 20],
    [B62, 36],
    [B62, 48],
    [`${B62}_-`, 74],
    [`${B62}_-`, 156],
    [HEX, 32],
    [HEX, 40],
    [HEX, 64],
    ['abcdefghijklmnopqrstuvwxyz0123456789', 43],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16],
    [`${B62}+/`, 40],
  ])('over %s at length %i (2,000 seeded tokens)', (alphabet, length) => {
    const sample = tokens(alphabet, length, 2000, length * 31 + alphabet.length)
    expect(sample.filter((t) => !looksRandom(t))).toEqual([])
    expect(sample.filter((t) => isPlaceholder(t))).toEqual([])
  })
})

describe('isPlaceholder', () => {
  it.each([
    'YOUR_API_KEY',
    'your-api-key-here',
    '<your-key>',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template placeholder, on purpose
    '${OPENAI_API_KEY}',
    '$OPENAI_API_KEY',
    '{{ secrets.TOKEN }}',
    '%API_KEY%',
    'process.env.OPENAI_API_KEY',
    'os.environ',
    '********',
    '••••••••',
    'xxxxxxxxxxxxxxxx',
    'XXXXXXXXXXXXXXXXXXXX',
    'AKIAIOSFODNN7EXAMPLE',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'changeme',
    'aaaaaaaaaaaaaaaaaaaaaaaa',
    '1234567890abcdefghij',
    'ABCDEFGHIJKLMNOP',
    'api_key',
  ])('%s is a placeholder', (value) => {
    expect(isPlaceholder(value)).toBe(true)
  })

  it('a random token is not, three dots inside it included', () => {
    expect(isPlaceholder('q8Zk3Vx9LmP2rT7wYb4Nc6Hd')).toBe(false)
    expect(isPlaceholder('q8Zk3Vx9...LmP2rT7wYb4Nc6Hd')).toBe(false)
  })

  it.each(['sk-...', 'sk-proj-...', '...4f2a', 'sk-proj-abc...xyz'])('%s is elided', (value) => {
    expect(isElided(value)).toBe(true)
    expect(isPlaceholder(value)).toBe(true)
  })
})

describe('shape checks', () => {
  it('tells words joined by separators from random parts', () => {
    expect(looksLikeWords('button-primary-large')).toBe(true)
    expect(looksLikeWords('fading_circle_dot')).toBe(true)
    expect(looksLikeWords('coffee+shops')).toBe(true)
    expect(looksLikeWords('proj-Ab3dEf6hIj9k')).toBe(false)
    expect(looksLikeWords('single')).toBe(false)
  })

  it('measures runs of consecutive characters', () => {
    expect(longestSequence('x0123456789y')).toBe(10)
    expect(longestSequence('zyxwv')).toBe(5)
    expect(longestSequence('q8Zk3Vx9')).toBe(1)
  })

  it('looksLikeCredential wants more than a word', () => {
    expect(looksLikeCredential('opaque123')).toBe(true)
    expect(looksLikeCredential('abcD1234efgh5678', 8)).toBe(true)
    expect(looksLikeCredential('coffee')).toBe(false)
    expect(looksLikeCredential('Token')).toBe(false)
    expect(looksLikeCredential('ACCESS_TOKEN')).toBe(false)
    expect(looksLikeCredential('200')).toBe(false)
  })
})

describe('isBasicCredential', () => {
  it('accepts base64 of user:password and rejects words', () => {
    expect(isBasicCredential(Buffer.from('svc-user:s3cr3t-pw').toString('base64'))).toBe(true)
    expect(isBasicCredential('Concepts')).toBe(false)
    expect(isBasicCredential('README12')).toBe(false)
    expect(isBasicCredential(Buffer.from('no colon here').toString('base64'))).toBe(false)
    expect(isBasicCredential(Buffer.from('user:<password>').toString('base64'))).toBe(false)
  })
})

describe('isJwt', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64url')
  it('wants a JSON header with alg or typ', () => {
    expect(isJwt(`${b64('{"alg":"HS256"}')}.${b64('{"sub":"1"}')}.sig12345`)).toBe(true)
    expect(isJwt(`eyJub3Rqc29u.${b64('{}')}.sig12345`)).toBe(false)
    expect(isJwt(`${b64('{"a":1}')}.${b64('{}')}.sig12345`)).toBe(false)
  })
})
