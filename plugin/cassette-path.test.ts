import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cassetteFolderFor, cassettePathFor, sanitizeTestName } from './cassette-path.ts'

describe('sanitizeTestName', () => {
  it('keeps names readable: describe blocks joined by ›, spaces and punctuation kept', () => {
    expect(sanitizeTestName('refund bot > a clean refund, A17')).toBe('refund bot › a clean refund, A17')
  })

  it('percent-encodes what file systems refuse, and % itself', () => {
    expect(sanitizeTestName('a/b\\c:d*e?f"g<h>i|j%k')).toBe('a%2Fb%5Cc%3Ad%2Ae%3Ff%22g%3Ch%3Ei%7Cj%25k')
    expect(sanitizeTestName('.hidden')).toBe('%2Ehidden')
    expect(sanitizeTestName('ends with a dot.')).toBe('ends with a dot%2E')
    expect(sanitizeTestName('a › b')).toBe('a %E2%80%BA b')
  })

  it('never maps two names to the same file name', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b)
        expect(sanitizeTestName(a)).not.toBe(sanitizeTestName(b))
      }),
      { numRuns: 500 },
    )
  })

  it('never yields a path separator, and stays within file-name limits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400, unit: 'grapheme' }), (name) => {
        const out = sanitizeTestName(name)
        expect(out).not.toMatch(/[/\\]/)
        expect(Buffer.byteLength(`${out}.cassette.json`)).toBeLessThanOrEqual(255)
      }),
    )
  })

  it('cuts a long name and keeps it distinct with a hash', () => {
    const a = sanitizeTestName(`${'x'.repeat(300)}a`)
    const b = sanitizeTestName(`${'x'.repeat(300)}b`)
    expect(a).toMatch(/^x{150}~[0-9a-f]{10}$/)
    expect(a).not.toBe(b)
  })
})

describe('cassettePathFor', () => {
  it('puts the cassette beside the test file, in a folder named after the file', () => {
    expect(cassettePathFor('/repo/test/refund.test.ts', 'refund > clean')).toBe(
      '/repo/test/__cassettes__/refund.test.ts/refund › clean.cassette.json',
    )
  })

  it('resolves a relative cassetteDir against the test file, and takes an absolute one as is', () => {
    expect(cassetteFolderFor('/repo/test/a.test.ts', '../recordings')).toBe('/repo/recordings/a.test.ts')
    expect(cassetteFolderFor('/repo/test/a.test.ts', '/data/cassettes')).toBe('/data/cassettes/a.test.ts')
  })
})

describe('sanitizeTestName edge cases', () => {
  it('keeps the empty name, a NUL and a ~ apart from the other forms', () => {
    expect(sanitizeTestName('')).toBe('%empty')
    expect(sanitizeTestName('\u0000empty')).toBe('%00empty')
    expect(sanitizeTestName('a~b')).toBe('a%7Eb')
  })
})
