import { describe, expect, it } from 'vitest'
import { createRng } from './create-rng.ts'

/** mulberry32 as its author published it, kept apart from the implementation under test. */
function referenceMulberry32(seed: number): () => number {
  let a = seed
  return () => {
    a |= 0
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function draw(rng: { next(): number }, n: number): number[] {
  return Array.from({ length: n }, () => rng.next())
}

describe('createRng', () => {
  it.each([0, 1, 42, 123456789, -7, 2 ** 31 - 1])('follows the published mulberry32 for seed %d', (seed) => {
    expect(draw(createRng(seed), 20)).toEqual(draw({ next: referenceMulberry32(seed) }, 20))
  })

  it('gives the same sequence for the same seed and different ones for different seeds', () => {
    expect(draw(createRng('refund-bot'), 50)).toEqual(draw(createRng('refund-bot'), 50))
    expect(draw(createRng('refund-bot'), 50)).not.toEqual(draw(createRng('refund-bot2'), 50))
    expect(draw(createRng(1), 50)).not.toEqual(draw(createRng(2), 50))
    // Seeds past 32 bits (timestamps) must not collapse onto the low bits alone.
    expect(draw(createRng(2 ** 32 + 5), 5)).not.toEqual(draw(createRng(5), 5))
  })

  it('keeps next() in [0, 1) and spreads it', () => {
    const values = draw(createRng(7), 10_000)
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...values)).toBeLessThan(1)
    const mean = values.reduce((a, b) => a + b, 0) / values.length
    expect(mean).toBeGreaterThan(0.48)
    expect(mean).toBeLessThan(0.52)
  })

  it('int(n) covers 0..n-1 and nothing else', () => {
    const rng = createRng(3)
    const counts = new Array(6).fill(0)
    for (let i = 0; i < 6000; i++) counts[rng.int(6)]++
    expect(counts.every((c) => c > 850 && c < 1150)).toBe(true)
    expect(counts.reduce((a, b) => a + b, 0)).toBe(6000)
  })

  it('chance(p) comes true about p of the time, never for 0 and always for 1', () => {
    const rng = createRng(11)
    const hits = Array.from({ length: 10_000 }, () => rng.chance(0.3)).filter(Boolean).length
    expect(hits).toBeGreaterThan(2800)
    expect(hits).toBeLessThan(3200)
    expect(Array.from({ length: 100 }, () => rng.chance(0)).some(Boolean)).toBe(false)
    expect(Array.from({ length: 100 }, () => rng.chance(1)).every(Boolean)).toBe(true)
  })

  it('chance() draws even at 0 and 1, so changing p does not shift later numbers', () => {
    const a = createRng(5)
    const b = createRng(5)
    a.chance(0)
    b.chance(0.5)
    expect(a.next()).toBe(b.next())
  })

  it('pick() returns every element of the array over many draws', () => {
    const rng = createRng(9)
    const seen = new Set(Array.from({ length: 200 }, () => rng.pick(['a', 'b', 'c'] as const)))
    expect([...seen].sort()).toEqual(['a', 'b', 'c'])
  })

  it('refuses arguments it cannot honour, naming them', () => {
    const rng = createRng()
    expect(() => rng.int(0)).toThrow(/positive integer, got 0/)
    expect(() => rng.int(2.5)).toThrow(/positive integer/)
    expect(() => rng.chance(1.5)).toThrow(/0 <= p <= 1, got 1.5/)
    expect(() => rng.pick([])).toThrow(/non-empty array/)
    expect(() => createRng(Number.NaN)).toThrow(/finite number or a string/)
  })
})
