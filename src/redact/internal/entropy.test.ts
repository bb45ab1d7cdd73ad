import { describe, expect, it } from 'vitest'
import { findHighEntropy, isHighEntropy, shannonEntropy } from './entropy.ts'
import { seededTokens } from './test-tokens.ts'

const tokens = seededTokens

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

describe('shannonEntropy', () => {
  it('is 0 for one repeated character and log2(n) for n distinct ones', () => {
    expect(shannonEntropy('aaaaaaaa')).toBe(0)
    expect(shannonEntropy('abcdefgh')).toBeCloseTo(3, 10)
  })
})

describe('isHighEntropy', () => {
  // At 20 characters, 3% of random base62 tokens have no digit and are let through as possible names;
  // from 32 characters on, the bar is the 1st-percentile threshold itself.
  it.each([
    [20, B62, 0.9],
    [32, B62, 0.95],
    [64, `${B62}+/`, 0.95],
    [40, '0123456789abcdef', 0.95],
    [48, 'abcdefghijklmnopqrstuvwxyz0123456789', 0.95],
  ])('flags random tokens of length %i over %s at a rate of at least %d', (length, alphabet, rate) => {
    const sample = tokens(alphabet, length, 400, length * 7919)
    const flagged = sample.filter((t) => isHighEntropy(t)).length
    expect(flagged / sample.length).toBeGreaterThanOrEqual(rate)
  })

  it.each([
    'ConversationSummaryBufferMemory2024',
    'thisIsAVeryLongCamelCaseIdentifierName',
    'docs/API-Reference/v2/Chat-Completions',
    'text-embedding-3-large-2024-01-25',
    'claude-3-5-sonnet-20241022',
    '123e4567-e89b-12d3-a456-426614174000',
    '12345678901234567890123456789012',
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1',
  ])('does not flag %s', (token) => {
    expect(isHighEntropy(token)).toBe(false)
  })

  it('respects minLength', () => {
    expect(isHighEntropy('q8Zk3Vx9LmP2rT7wYb4N')).toBe(true)
    expect(isHighEntropy('q8Zk3Vx9LmP2rT7wYb4N', { minLength: 24 })).toBe(false)
  })
})

describe('findHighEntropy', () => {
  it('returns offsets and skips data URLs', () => {
    const token = 'q8Zk3Vx9LmP2rT7wYb4Nc6Hd'
    expect(findHighEntropy(`key ${token} here`)).toEqual([{ start: 4, end: 28, token }])
    expect(findHighEntropy(`data:image/png;base64,${token}`)).toEqual([])
  })
})
