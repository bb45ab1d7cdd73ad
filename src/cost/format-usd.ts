/**
 * A USD amount for tables and messages: `$0` for nothing, cents for a dollar or more (`$12.35`), and
 * three significant digits below a dollar, however small (`$0.50`, `$0.0123`, `$0.00000125`), so that
 * a cheap step never reads as `$0.00`.
 *
 * @example
 * formatUsd(0) // '$0'
 * formatUsd(0.012345) // '$0.0123'
 * formatUsd(1234.5) // '$1234.50'
 */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return `$${usd}`
  if (usd === 0) return '$0'
  const sign = usd < 0 ? '-' : ''
  const amount = Math.abs(usd)
  if (amount >= 1) return `${sign}$${amount.toFixed(2)}`
  if (amount < 1e-17) return `${sign}$${amount.toPrecision(3)}`
  // Decimals for three significant digits, at least two (cents), at most twenty (what toFixed allows).
  const decimals = Math.min(20, Math.max(2, 2 - Math.floor(Math.log10(amount))))
  const text = amount.toFixed(decimals)
  // Trailing zeros say nothing below a cent: $0.500 → $0.50, $0.0100 → $0.01.
  const trimmed = text
    .replace(/0+$/, '')
    .replace(/\.(\d)$/, '.$10')
    .replace(/\.$/, '.00')
  return `${sign}$${trimmed}`
}
