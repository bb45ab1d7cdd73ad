import { describe, expect, it } from 'vitest'
import { CrashlabError } from '../../errors.ts'
import { createDetectors } from './create-detectors.ts'
import {
  type ChecksOptions,
  ChecksOptionsSchema,
  isTrustedChecksOptions,
  resolveChecksOptions,
  trustChecksOptions,
} from './options.ts'

describe('ChecksOptionsSchema and resolveChecksOptions', () => {
  it('fills the documented defaults', () => {
    expect(resolveChecksOptions()).toEqual({
      limits: {},
      warnAt: 0.8,
      circuitBreaker: false,
      stepRepetition: { threshold: 3, critical: 5 },
      toolErrorStreak: { threshold: 3, critical: 5 },
      badToolArgs: true,
      suspiciousToolResult: true,
      lengthCutoff: true,
    })
  })

  it('maps the limits, turns detectors off with false, and true means the defaults', () => {
    const resolved = resolveChecksOptions({
      maxSteps: 20,
      maxLlmCalls: 10,
      maxToolCalls: 8,
      maxTokens: 50_000,
      maxCostUsd: 0.1,
      maxSeconds: 30,
      warnAt: 0.9,
      circuitBreaker: true,
      stepRepetition: false,
      toolErrorStreak: true,
      badToolArgs: false,
    })
    expect(resolved.limits).toEqual({
      steps: 20,
      llmCalls: 10,
      toolCalls: 8,
      tokens: 50_000,
      costUsd: 0.1,
      seconds: 30,
    })
    expect(resolved).toMatchObject({
      warnAt: 0.9,
      circuitBreaker: true,
      stepRepetition: false,
      toolErrorStreak: { threshold: 3, critical: 5 },
      badToolArgs: false,
    })
    // A threshold above the default critical escalates where it warns.
    expect(resolveChecksOptions({ stepRepetition: { threshold: 7 } }).stepRepetition).toEqual({
      threshold: 7,
      critical: 7,
    })
  })

  it('survives a JSON round trip (a config file holds it)', () => {
    const options: ChecksOptions = { maxCostUsd: 0.05, stepRepetition: { threshold: 4, critical: 6 } }
    expect(ChecksOptionsSchema.parse(JSON.parse(JSON.stringify(options)))).toEqual(options)
  })

  it('rejects unknown keys and bad values, naming every path', () => {
    const bad = {
      maxStep: 20,
      warnAt: 1.5,
      maxCostUsd: -1,
      stepRepetition: { threshold: 4, critical: 3 },
      toolErrorStreak: { threshold: 0 },
    } as unknown as ChecksOptions
    let error: unknown
    try {
      resolveChecksOptions(bad)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(CrashlabError)
    const e = error as CrashlabError
    expect(e.code).toBe('E_CONFIG_INVALID')
    expect(e.issues.map((i) => i.path).sort()).toEqual(
      [
        '$.maxCostUsd',
        '$.maxStep',
        '$.stepRepetition.critical',
        '$.toolErrorStreak.threshold',
        '$.warnAt',
      ].sort(),
    )
    expect(e.message).toContain("unknown option 'maxStep'")
    expect(e.message).toContain('critical must be at least threshold')
    expect(() => createDetectors({ maxSteps: 2.5 })).toThrow(/maxSteps/)
  })

  it('skips the schema for options known to be valid, and never trusts options holding more than JSON', () => {
    // Invalid options, so that a skipped schema shows: trusted is what the plugin's process checked.
    const negative = { maxSteps: -1 }
    expect(() => resolveChecksOptions(negative)).toThrow(/maxSteps/)
    trustChecksOptions(negative)
    expect(isTrustedChecksOptions({ maxSteps: -1 })).toBe(true)
    expect(resolveChecksOptions({ maxSteps: -1 }).limits).toEqual({ steps: -1 })
    // A function is dropped by JSON.stringify: trusting such options would wave an unknown key through.
    const withFunction = { maxSteps: 4, colour: () => 'red' } as unknown as ChecksOptions
    trustChecksOptions(withFunction)
    expect(isTrustedChecksOptions(withFunction)).toBe(false)
    expect(() => resolveChecksOptions(withFunction)).toThrow(/colour/)
    // Options that passed the schema once are trusted from then on.
    resolveChecksOptions({ maxSteps: 12, warnAt: 0.5 })
    expect(isTrustedChecksOptions({ maxSteps: 12, warnAt: 0.5 })).toBe(true)
  })
})
