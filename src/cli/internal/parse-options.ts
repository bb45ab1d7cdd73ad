import { SEVERITIES } from '../../case/schema/severities.ts'
import type { Severity } from '../../case/schema/step.ts'
import { usageError } from './usage-error.ts'

export { usageError }

/** Reads a severity option; undefined when it was not given. */
export function parseSeverity(value: string | undefined, option: string): Severity | undefined {
  if (value === undefined) return undefined
  if (!(SEVERITIES as readonly string[]).includes(value))
    throw usageError(`${option} must be one of ${SEVERITIES.join(', ')}; got ${JSON.stringify(value)}`)
  return value as Severity
}

/** Reads a USD amount ≥ 0; undefined when it was not given. */
export function parseUsd(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined
  const usd = Number(value)
  if (!Number.isFinite(usd) || usd < 0)
    throw usageError(
      `${option} takes an amount in US dollars ≥ 0, as in ${option} 0.05; got ${JSON.stringify(value)}`,
    )
  return usd
}

/** Reads a whole number above 0; `fallback` when it was not given. */
export function parsePositiveInt(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0)
    throw usageError(`${option} must be a whole number above 0; got ${JSON.stringify(value)}`)
  return n
}
