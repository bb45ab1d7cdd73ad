/**
 * A seeded pseudo-random generator for scripted agents. A policy that draws from `ctx.rng` instead of
 * `Math.random` answers the same sequence of requests the same way for the same seed, so a stochastic
 * agent test that fails once fails again, and a flaky-on-purpose agent can be replayed run by run.
 */

/**
 * A seeded source of numbers: every method advances the same stream.
 *
 * @example
 * const policy = (_request: unknown, { rng }: { rng: Rng }) => ({ text: rng.pick(['yes', 'no']) })
 */
export interface Rng {
  /** The seed the generator started from (a string seed is kept as given). */
  readonly seed: number | string
  /** A float in [0, 1). */
  next(): number
  /** An integer in [0, n); `n` must be a positive integer. */
  int(n: number): number
  /** True with probability `p` (0 never, 1 always). */
  chance(p: number): boolean
  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T
}

/**
 * A seeded generator (mulberry32: 32 bits of state, one multiply-xorshift round per number; small,
 * well studied and fast, which is all a test script needs; it is not for cryptography). A string seed
 * is hashed to 32 bits first (FNV-1a), so `'refund-bot'` is as good a seed as `42`.
 *
 * @example
 * const rng = createRng(42)
 * rng.next()            // 0.6011037519201636, the same on every machine
 * rng.int(6)            // 0..5
 * rng.chance(0.9)       // true nine times in ten
 * rng.pick(['a', 'b'])  // 'a' or 'b'
 */
export function createRng(seed: number | string = 0): Rng {
  let state = seedToState(seed)
  const next = (): number => {
    // mulberry32, as published by Tommy Ettinger; `| 0` and `>>> 0` keep every step in 32 bits.
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    seed,
    next,
    int(n) {
      if (!Number.isInteger(n) || n <= 0)
        throw new RangeError(`[crashlab] rng.int(n) needs a positive integer, got ${n}`)
      return Math.floor(next() * n)
    },
    chance(p) {
      if (!(p >= 0 && p <= 1)) throw new RangeError(`[crashlab] rng.chance(p) needs 0 <= p <= 1, got ${p}`)
      // Always draw, even for p = 0 or 1, so that changing p does not shift every later number.
      return next() < p
    },
    pick(items) {
      if (items.length === 0) throw new RangeError('[crashlab] rng.pick() needs a non-empty array')
      return items[Math.floor(next() * items.length)] as (typeof items)[number]
    },
  }
}

function seedToState(seed: number | string): number {
  if (typeof seed === 'number') {
    if (!Number.isFinite(seed))
      throw new RangeError(`[crashlab] an rng seed must be a finite number or a string, got ${seed}`)
    // Fold in the high bits so that seeds above 2^32 (Date.now()) still differ from one another.
    return (Math.trunc(seed) ^ Math.trunc(seed / 4294967296)) | 0
  }
  let hash = 0x811c9dc5
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash | 0
}
