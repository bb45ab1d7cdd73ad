import { writeCassette } from '../case/cassette-write.ts'
import type { JsonValue } from '../case/schema/json.ts'
import type { Run } from '../case/schema/run.ts'
import type { ChecksOptions } from '../checks/detectors/options.ts'
import { applyOracles } from '../checks/oracles/apply-oracles.ts'
import type { Oracle, OracleFn, OracleResult } from '../checks/oracles/types.ts'
import { composeHooks } from '../checks/runtime/compose-hooks.ts'
import { RuntimeChecks } from '../checks/runtime/runtime-checks.ts'
import { loadConfig } from '../config/load-config.ts'
import { mergeConfig } from '../config/merge-config.ts'
import type { PriceOverride } from '../cost/index.ts'
import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import type { MatchingOptions, SessionHooks } from '../engine/types.ts'
import { isCrashlabError } from '../errors.ts'
import { createRedactor } from '../redact/create-redactor.ts'
import type { Redactor } from '../redact/types.ts'

/**
 * Options of `record`.
 *
 * @example
 * const options: RecordOptions<string> = { input: 'Refund my order A17', cassette: 'runs/refund.cassette.json' }
 */
export interface RecordOptions<I> {
  /** What `fn` is called with; stored in the run (redacted when written). */
  input: I
  /** The agent whose registered oracles (`check(agent, fn)`) grade the run; the run's name. Default: `name`. */
  agent?: string
  /** More oracles for this run only, after the registered ones. */
  oracles?: ReadonlyArray<Oracle | OracleFn>
  /** Writes the graded run to this cassette (redacted, atomically), whatever the run did. */
  cassette?: string
  /** The redaction rules of the request hash and of the cassette; the default redactor when omitted. */
  redactor?: Redactor
  /** Extra matching rules (ignored params, normalizers), as the later replay will use them. */
  matching?: MatchingOptions
  /** Engine hooks of the recording Session. */
  hooks?: SessionHooks
  /**
   * Runtime checks of this run (budgets, detector thresholds, the circuit breaker), over the config
   * file's `checks`, key by key.
   */
  checks?: ChecksOptions
  /** Price overrides in USD per million tokens, over the config file's `prices`. */
  prices?: Record<string, PriceOverride>
  /**
   * The project config file (checks, prices, redaction rules): a path, or `false` to read none. Default:
   * the `crashlab.config.ts` found from the current folder up to the project root, or `$CRASHLAB_CONFIG`.
   */
  config?: string | false
}

/**
 * What `record` gives back: the graded run, the agent's answer, or the agent's error.
 *
 * @example
 * const { run, output, error, results } = await record('refund', runRefundBot, { input })
 */
export interface Recording<O> {
  /** The graded run: `checks` and `outcome` are the oracles'; `status` is `error` when the agent threw. */
  run: Run
  /** What `fn` returned; undefined when it threw. */
  output: O | undefined
  /** What `fn` threw, unchanged; undefined when it returned. */
  error: unknown
  /** How each oracle went. */
  results: OracleResult[]
  /** The cassette written, when `cassette` was given. */
  cassettePath: string | undefined
}

/**
 * Records one agent run without Vitest: the same Run as `agentCase` builds in a test. It opens a
 * record-mode Session, runs `fn(input)` in it (every model call through `wrap(client)` or the
 * interceptor, and every `tool()` call, becomes a step), ends the run, grades it with the oracles of
 * `agent` and `oracles`, and writes it to `cassette` when given.
 *
 * The agent's own error does not throw: a failed run is still a run (status `error`, its steps up to
 * the failure) and is graded and written like any other; it comes back as `error`. What does throw is
 * crashlab's own failure to capture the run (`E_CAPTURE`: a hook threw, a response could not be read),
 * since the recording would then be wrong; nothing is written in that case.
 *
 * @example
 * import OpenAI from 'openai'
 * import { record, wrap } from 'crashlab'
 *
 * const openai = wrap(new OpenAI())
 * const { run, output, error } = await record('refund', (input: string) => refundBot(openai, input), {
 *   agent: 'refund-bot',
 *   input: 'Refund my order A17, it arrived broken',
 *   cassette: '__cassettes__/refund.cassette.json',
 * })
 * if (error) console.error('the agent failed', error)
 * console.log(run.outcome, run.steps.length, output)
 */
export async function record<I, O>(
  name: string,
  fn: (input: I) => O | Promise<O>,
  options: RecordOptions<I>,
): Promise<Recording<O>> {
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError(
      "[crashlab] record(name, fn, options) needs a name first, as in record('refund', agent, { input })",
    )
  }
  if (typeof fn !== 'function') {
    throw new TypeError(
      `[crashlab] record("${name}", fn, options) needs the agent function; got ${typeof fn}`,
    )
  }
  const agent = options.agent ?? name
  // The same config file, read the same way, as the Vitest plugin reads: the nearer setting wins.
  const { config } = await loadConfig({ file: options.config })
  const layered = mergeConfig(config, { checks: options.checks, prices: options.prices })
  const checks = new RuntimeChecks({ checks: layered.checks, prices: layered.prices })
  const redactor = options.redactor ?? (config.redaction ? createRedactor(config.redaction) : undefined)
  const session = new Session({
    mode: 'record',
    name: agent,
    input: toJson(options.input),
    label: name,
    cassettePath: options.cassette,
    redactor,
    matching: options.matching,
    hooks: composeHooks(options.hooks, checks.hooks),
  })
  let output: O | undefined
  let error: unknown
  let failed = false
  try {
    output = await runInSession(session, () => fn(options.input))
  } catch (thrown) {
    failed = true
    error = thrown
  }
  let finished: Run
  try {
    finished = await session.finish(failed ? { error } : { output })
  } catch (stopped) {
    // In a recording, finish() throws only when the circuit breaker stopped the run: that is how the
    // run ended, so it is graded and written like any other, and comes back as the error.
    if (!isCrashlabError(stopped, 'E_CIRCUIT_OPEN')) throw stopped
    failed = true
    error = stopped
    output = undefined
    finished = session.run
  }
  const { run, results } = await applyOracles(checks.finalize(finished), { agent, oracles: options.oracles })
  let cassettePath: string | undefined
  if (options.cassette !== undefined) {
    writeCassette(options.cassette, run, { redactor })
    cassettePath = options.cassette
  }
  return { run, output, error, results, cassettePath }
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue
  } catch {
    return String(value)
  }
}
