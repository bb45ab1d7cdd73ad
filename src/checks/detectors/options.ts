import type { z } from 'zod'
import { toValidationIssues } from '../../case/validation-issues.ts'
import { CrashlabError, formatIssues } from '../../errors.ts'
import { lazySchema, zod } from '../../lazy-zod.ts'

/**
 * The settings of the runtime detectors. A project config nests this object under `checks`, and a test
 * passes it as `checks: {...}`, so it is plain JSON: numbers and booleans only, every field optional.
 */

const positive = lazySchema(() => zod.number().positive().finite())
const positiveInt = lazySchema(() => zod.number().int().positive())

const RepetitionSchema = lazySchema(() =>
  zod
    .strictObject({
      /** Occurrences of the same call (or of a near-identical LLM request) that raise a `warn`. Default 3. */
      threshold: positiveInt.min(2).optional(),
      /** Occurrences that raise it to `critical`. Default 5 (never below `threshold`). */
      critical: positiveInt.min(2).optional(),
    })
    .refine((r) => r.critical === undefined || r.critical >= (r.threshold ?? 3), {
      message: 'critical must be at least threshold (default 3)',
      path: ['critical'],
    }),
)

const StreakSchema = lazySchema(() =>
  zod
    .strictObject({
      /** Consecutive failed tool results that raise a `warn`. Default 3. */
      threshold: positiveInt.optional(),
      /** Consecutive failed tool results that raise it to `critical`. Default 5 (never below `threshold`). */
      critical: positiveInt.optional(),
    })
    .refine((r) => r.critical === undefined || r.critical >= (r.threshold ?? 3), {
      message: 'critical must be at least threshold (default 3)',
      path: ['critical'],
    }),
)

/**
 * The runtime detectors' options, as zod (strict: a misspelled field is an error, not a silent default).
 * Budgets are off unless a limit is given; every other detector is on by default.
 *
 * | field                  | default                        | what                                                       |
 * | ---------------------- | ------------------------------ | ---------------------------------------------------------- |
 * | `maxSteps`             | none                           | budget: steps of any type but MCP messages (`mcp:` http)   |
 * | `maxLlmCalls`          | none                           | budget: LLM steps                                          |
 * | `maxToolCalls`         | none                           | budget: tool calls (wrapped and model-side, each once)     |
 * | `maxTokens`            | none                           | budget: input + output tokens of the LLM responses         |
 * | `maxCostUsd`           | none                           | budget: the sum of `step.cost.usd`                         |
 * | `maxSeconds`           | none                           | budget: from `run.startedAt` to the end of the latest step |
 * | `warnAt`               | `0.8`                          | a budget warns at this fraction of its limit (0 < x ≤ 1)   |
 * | `circuitBreaker`       | `false`                        | stop the agent at the first `critical` finding             |
 * | `stepRepetition`       | `{ threshold: 3, critical: 5 }`| or `false`                                                 |
 * | `toolErrorStreak`      | `{ threshold: 3, critical: 5 }`| or `false`                                                 |
 * | `badToolArgs`          | `true`                         | validate arguments against the tool's JSON Schema          |
 * | `suspiciousToolResult` | `true`                         | HTML / error pages, empty, truncated, drifted results      |
 * | `lengthCutoff`         | `true`                         | responses cut by the token limit                           |
 *
 * `true` for `stepRepetition` or `toolErrorStreak` means the defaults.
 *
 * @example
 * ChecksOptionsSchema.parse({ maxSteps: 20, maxCostUsd: 0.1, stepRepetition: { threshold: 4 } })
 */
export const ChecksOptionsSchema = lazySchema(() =>
  zod.strictObject({
    maxSteps: positiveInt.optional(),
    maxLlmCalls: positiveInt.optional(),
    maxToolCalls: positiveInt.optional(),
    maxTokens: positiveInt.optional(),
    maxCostUsd: positive.optional(),
    maxSeconds: positive.optional(),
    warnAt: zod.number().gt(0).max(1).optional(),
    /** Read by the circuit breaker, src/checks/runtime/circuit-breaker.ts. */
    circuitBreaker: zod.boolean().optional(),
    stepRepetition: zod.union([zod.boolean(), RepetitionSchema]).optional(),
    toolErrorStreak: zod.union([zod.boolean(), StreakSchema]).optional(),
    badToolArgs: zod.boolean().optional(),
    suspiciousToolResult: zod.boolean().optional(),
    lengthCutoff: zod.boolean().optional(),
  }),
)

/**
 * The runtime detectors' options (see `ChecksOptionsSchema` for the fields and their defaults).
 *
 * @example
 * const checks: ChecksOptions = { maxSteps: 20, maxCostUsd: 0.1, warnAt: 0.9, toolErrorStreak: false }
 */
export type ChecksOptions = z.infer<typeof ChecksOptionsSchema>

/**
 * The options with every default filled in; a disabled detector is `false`.
 *
 * @example
 * resolveChecksOptions({}).stepRepetition // { threshold: 3, critical: 5 }
 */
export interface ResolvedChecksOptions {
  limits: {
    steps?: number
    llmCalls?: number
    toolCalls?: number
    tokens?: number
    costUsd?: number
    seconds?: number
  }
  warnAt: number
  circuitBreaker: boolean
  stepRepetition: { threshold: number; critical: number } | false
  toolErrorStreak: { threshold: number; critical: number } | false
  badToolArgs: boolean
  suspiciousToolResult: boolean
  lengthCutoff: boolean
}

/**
 * The defaults, as documented in `docs/checks.md`.
 *
 * @example
 * CHECKS_DEFAULTS.warnAt // 0.8
 */
export const CHECKS_DEFAULTS = Object.freeze({
  warnAt: 0.8,
  circuitBreaker: false,
  repetitionThreshold: 3,
  repetitionCritical: 5,
  streakThreshold: 3,
  streakCritical: 5,
  badToolArgs: true,
  suspiciousToolResult: true,
  lengthCutoff: true,
})

/**
 * Validates the options and fills in the defaults. Throws a `CrashlabError` listing every problem with its
 * path (`$.stepRepetition.threshold`), so a wrong value in a config file names the line to fix.
 *
 * @example
 * resolveChecksOptions({ maxSteps: 20 }).limits // { steps: 20 }
 * resolveChecksOptions({ maxStep: 20 }) // throws: unknown option 'maxStep'
 */
export function resolveChecksOptions(options: ChecksOptions = {}): ResolvedChecksOptions {
  // No options, nothing to validate: every test runs this, and most give none (zod loads on first use).
  if (isEmpty(options)) return resolved({})
  if (isTrustedChecksOptions(options)) return resolved(options)
  const parsed = ChecksOptionsSchema.safeParse(options)
  if (!parsed.success) {
    const issues = toValidationIssues(parsed.error.issues, {
      unknownKey: (key) => `unknown option '${key}': see docs/checks.md for the runtime checks' options`,
    })
    throw new CrashlabError('E_CONFIG_INVALID', `invalid runtime checks options:\n${formatIssues(issues)}`, {
      issues,
      subject: 'checks',
    })
  }
  trustChecksOptions(options)
  return resolved(parsed.data)
}

/** The options this process knows to be valid, by their `plainKey`. */
const trusted = new Set<string>()

/**
 * Records options as valid, so that a later check of the same options (equal as plain JSON) skips the
 * schema: options this process has validated, and the ones the Vitest plugin validated in its own
 * process before handing them to each worker (`plugin/setup.ts`), which then loads no zod for them.
 * Options holding anything but plain JSON values are never trusted.
 *
 * @example
 * trustChecksOptions({ maxSteps: 10 })
 * resolveChecksOptions({ maxSteps: 10 }) // no schema
 */
export function trustChecksOptions(options: ChecksOptions | undefined): void {
  const key = options === undefined ? undefined : plainKey(options)
  if (key !== undefined) trusted.add(key)
}

/**
 * Whether `options` are known to be valid (`trustChecksOptions`).
 *
 * @example
 * isTrustedChecksOptions({ maxSteps: 10 }) // true once trusted or validated in this process
 */
export function isTrustedChecksOptions(options: unknown): boolean {
  const key = plainKey(options)
  return key !== undefined && trusted.has(key)
}

/** JSON of a value made of plain objects, arrays, strings, finite numbers, booleans and null; else undefined. */
function plainKey(value: unknown): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : undefined
  if (Array.isArray(value)) {
    const items = value.map(plainKey)
    return items.includes(undefined) ? undefined : `[${items.join(',')}]`
  }
  if (typeof value !== 'object') return undefined
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return undefined
  const parts: string[] = []
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue
    const item = plainKey(v)
    if (item === undefined) return undefined
    parts.push(`${JSON.stringify(k)}:${item}`)
  }
  return `{${parts.join(',')}}`
}

function isEmpty(options: unknown): boolean {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return false
  const proto = Object.getPrototypeOf(options)
  return (proto === Object.prototype || proto === null) && Object.keys(options).length === 0
}

function resolved(o: ChecksOptions): ResolvedChecksOptions {
  const limits: ResolvedChecksOptions['limits'] = {}
  if (o.maxSteps !== undefined) limits.steps = o.maxSteps
  if (o.maxLlmCalls !== undefined) limits.llmCalls = o.maxLlmCalls
  if (o.maxToolCalls !== undefined) limits.toolCalls = o.maxToolCalls
  if (o.maxTokens !== undefined) limits.tokens = o.maxTokens
  if (o.maxCostUsd !== undefined) limits.costUsd = o.maxCostUsd
  if (o.maxSeconds !== undefined) limits.seconds = o.maxSeconds
  return {
    limits,
    warnAt: o.warnAt ?? CHECKS_DEFAULTS.warnAt,
    circuitBreaker: o.circuitBreaker ?? CHECKS_DEFAULTS.circuitBreaker,
    stepRepetition: levels(
      o.stepRepetition,
      CHECKS_DEFAULTS.repetitionThreshold,
      CHECKS_DEFAULTS.repetitionCritical,
    ),
    toolErrorStreak: levels(
      o.toolErrorStreak,
      CHECKS_DEFAULTS.streakThreshold,
      CHECKS_DEFAULTS.streakCritical,
    ),
    badToolArgs: o.badToolArgs ?? CHECKS_DEFAULTS.badToolArgs,
    suspiciousToolResult: o.suspiciousToolResult ?? CHECKS_DEFAULTS.suspiciousToolResult,
    lengthCutoff: o.lengthCutoff ?? CHECKS_DEFAULTS.lengthCutoff,
  }
}

function levels(
  value: boolean | { threshold?: number; critical?: number } | undefined,
  threshold: number,
  critical: number,
): { threshold: number; critical: number } | false {
  if (value === false) return false
  if (value === undefined || value === true) return { threshold, critical }
  const t = value.threshold ?? threshold
  // A threshold above the default critical, with no critical given, escalates where it warns.
  return { threshold: t, critical: value.critical ?? Math.max(critical, t) }
}
