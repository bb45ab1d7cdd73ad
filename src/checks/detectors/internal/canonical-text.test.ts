import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalStringify } from '../../../case/internal/canonical-json.ts'
import { canonicalText } from './canonical-text.ts'

describe('canonicalText', () => {
  it('is canonicalStringify, compact', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalText(value)).toBe(canonicalStringify(value))
      }),
    )
    const odd = { '\u{1F600}': 1, '\uE000': 2, b: [undefined, -0, { z: undefined }], a: '"\n' }
    expect(canonicalText(odd)).toBe(canonicalStringify(odd))
  })

  it('throws where canonicalStringify throws', () => {
    const cycle: Record<string, unknown> = {}
    let deep: Record<string, unknown> = cycle
    for (let i = 0; i < 40; i++) deep = deep.next = {}
    deep.back = cycle
    for (const value of [Number.NaN, { a: Infinity }, [1n], () => 1, cycle]) {
      expect(() => canonicalStringify(value)).toThrow(TypeError)
      expect(() => canonicalText(value)).toThrow(TypeError)
    }
  })
})
