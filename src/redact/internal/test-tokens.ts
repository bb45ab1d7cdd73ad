/**
 * Seeded random tokens (a 32-bit LCG): the entropy and validator tests check the same strings on every
 * run and every machine.
 *
 * @example
 * seededTokens('0123456789abcdef', 32, 100, 7) // 100 hex tokens of 32 characters
 */
export function seededTokens(alphabet: string, length: number, count: number, seed: number): string[] {
  let state = seed >>> 0
  const out: string[] = []
  for (let t = 0; t < count; t++) {
    let s = ''
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0
      s += alphabet[(state >>> 8) % alphabet.length]
    }
    out.push(s)
  }
  return out
}
