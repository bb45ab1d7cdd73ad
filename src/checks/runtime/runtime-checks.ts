import type { Run } from '../../case/schema/run.ts'
import type { Finding, LlmStep, Step } from '../../case/schema/step.ts'
import { type PriceOptions, priceRun, priceStep } from '../../cost/index.ts'
import type { Session } from '../../engine/session.ts'
import type { SessionHooks } from '../../engine/types.ts'
import { CrashlabError } from '../../errors.ts'
import { detectFindings } from '../detectors/index.ts'
import {
  type ChecksOptions,
  ChecksOptionsSchema,
  isTrustedChecksOptions,
  trustChecksOptions,
} from '../detectors/options.ts'
import { type CircuitBreaker, createCircuitBreaker } from './circuit-breaker.ts'

/**
 * What a run is checked and priced with: the detectors' options (budgets, thresholds, the circuit
 * breaker) and price overrides. The config file, the plugin options and a test's own `checks` each give
 * one; `mergeConfig` layers them.
 *
 * @example
 * const options: RuntimeChecksOptions = { checks: { maxSteps: 20, circuitBreaker: true }, prices: { 'my-model': { input: 1, output: 2 } } }
 */
export interface RuntimeChecksOptions {
  checks?: ChecksOptions
  prices?: PriceOptions['prices']
}

/**
 * The runtime side of a run's checks, plugged into a Session through its `onStep` hook: it prices each
 * LLM step as it finishes (`step.cost`, `run.cost`), then hands it to the run's circuit breaker
 * (`createCircuitBreaker`, src/checks/runtime/circuit-breaker.ts: with `circuitBreaker: true`, it halts
 * the Session at the first critical finding with `E_CIRCUIT_OPEN`). `finalize(run)` sets the run's
 * findings from one full pass over the finished run (the same detectors, so a stored run gets the same
 * findings as the live one), its cost, and what the breaker records of a trip.
 *
 * @example
 * const checks = new RuntimeChecks({ checks: { maxToolCalls: 10, circuitBreaker: true } })
 * const session = new Session({ mode: 'record', hooks: checks.hooks })
 * await runInSession(session, () => agent(input))
 * const run = checks.finalize(await session.finish({ output }))
 */
export class RuntimeChecks {
  private options: RuntimeChecksOptions
  private breaker: CircuitBreaker
  private started = false
  readonly hooks: SessionHooks

  constructor(options: RuntimeChecksOptions = {}) {
    this.options = { ...options, checks: parseChecks(options.checks, 'the checks options') }
    this.breaker = createCircuitBreaker(this.options.checks)
    this.hooks = { onStep: (step, session) => this.onStep(step, session) }
  }

  /** The detector options in effect. */
  get checks(): ChecksOptions {
    return this.options.checks ?? {}
  }

  /** The finding that opened the circuit, when the breaker tripped. */
  get tripped(): Finding | undefined {
    return this.breaker.tripped
  }

  /**
   * Layers nearer options (a test's own `checks`) over the current ones, key by key. Only before the run's
   * first step: the circuit breaker starts over with the new options.
   */
  configure(checks: ChecksOptions | undefined, where = "the test's checks"): void {
    if (checks === undefined) return
    if (this.started) {
      throw new CrashlabError(
        'E_CONFIG_INVALID',
        `${where} came after the run's first step: give checks before the agent runs.`,
      )
    }
    const merged = mergeChecks(this.options.checks, parseChecks(checks, where))
    this.options = { ...this.options, checks: merged }
    this.breaker = createCircuitBreaker(merged)
  }

  /** Prices the finished run, sets its findings from a full pass of the detectors, and marks a trip. */
  finalize(run: Run): Run {
    const priced = priceRun(run, { prices: this.options.prices })
    priced.findings = detectFindings(priced, this.options.checks)
    return this.breaker.finalize(priced)
  }

  private onStep(step: Step, session: Session): void {
    this.started = true
    // Priced before the breaker's detectors see the step: the cost budget reads `step.cost`.
    if (step.type === 'llm') priceInto(step, session.run, this.options.prices)
    this.breaker.onStep(step, session)
  }
}

function priceInto(step: LlmStep, run: Run, prices: RuntimeChecksOptions['prices']): void {
  const cost = priceStep(step, { prices })
  step.cost = cost
  if (!cost) return
  run.cost = run.cost ? { ...run.cost, usd: run.cost.usd + cost.usd } : { ...cost }
}

function parseChecks(checks: unknown, where: string): ChecksOptions | undefined {
  if (checks === undefined) return undefined
  if (isTrustedChecksOptions(checks)) return checks as ChecksOptions
  const parsed = ChecksOptionsSchema.safeParse(checks)
  if (parsed.success) {
    trustChecksOptions(checks as ChecksOptions)
    return checks as ChecksOptions
  }
  const issues = parsed.error.issues.map((i) => `  ✖ ${i.message}\n    → at checks.${i.path.join('.')}`)
  throw new CrashlabError('E_CONFIG_INVALID', `${where} are not valid:\n${issues.join('\n')}`)
}

function mergeChecks(a: ChecksOptions | undefined, b: ChecksOptions | undefined): ChecksOptions | undefined {
  if (!a) return b
  if (!b) return a
  const out: Record<string, unknown> = { ...a }
  for (const [key, value] of Object.entries(b)) {
    if (value === undefined) continue
    const current = out[key]
    out[key] = isObject(current) && isObject(value) ? { ...current, ...value } : value
  }
  return out as ChecksOptions
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
