/**
 * A USD figure kept to 12 significant digits: far finer than a token's price, and it keeps float noise
 * (`0.0035000000000000005`) out of cassettes, so a re-record shows no spurious diff.
 *
 * @example
 * roundUsd(0.1 + 0.2) // 0.3
 */
export function roundUsd(usd: number): number {
  return usd === 0 ? 0 : Number(usd.toPrecision(12))
}
