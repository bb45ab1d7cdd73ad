import { writeCassette } from '../case/cassette-write.ts'
import type { EntryPoint, Run } from '../case/schema/run.ts'
import type { ChecksOptions } from '../checks/detectors/options.ts'
import type { Oracle, OracleFn, OracleResult } from '../checks/oracles/types.ts'
import type { PriceOverride } from '../cost/index.ts'
import type { MatchingOptions, SessionHooks } from '../engine/types.ts'
import { runAgent } from '../harness/run-agent.ts'
import { allMode } from '../record-modes/index.ts'
import type { Redactor } from '../redact/types.ts'
import type { StoredRunSummary } from '../store/types.ts'
import { productionPlan } from './internal/production-plan.ts'
import type { StoreOption } from './internal/store-for.ts'

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
  /**
   * Where the graded run is also stored, journaled step by step while it runs: a `RunStore`, a store
   * folder, `true` for the default store (`openStore()`: `$CRASHLAB_DIR`, the config's `store.dir`, or
   * `.crashlab/`), or `false` for none. Default: the default store outside Vitest, none under Vitest
   * (`process.env.VITEST`), where a test keeps its run in its cassette. A store that fails is a warning
   * (`CRASHLAB_STORE`), never an error: the run is returned all the same. See docs/store.md.
   */
  store?: StoreOption
  /** Tags of the stored run (`crashlab ls --tag`). */
  tags?: string[]
  /**
   * How `crashlab replay <id>` starts this run again: the module (a path against the folder the replay
   * runs in, or a package) and the name of the export that `fn` is, called with `input`. Default none.
   *
   * @example
   * entryPoint: { kind: 'module', module: './src/refund-bot.ts', export: 'runRefundBot' }
   */
  entryPoint?: EntryPoint
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
  /** The run as stored (see the `store` option); undefined when it was not stored. */
  stored: StoredRunSummary | undefined
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
  const ended = await runAgent(
    {
      ...productionPlan(options),
      // record() always records (the `all` record mode); it writes its cassette whatever the run did.
      session: allMode.open({ path: options.cassette }, { label: name, matching: options.matching }).session,
      name: agent,
      input: options.input,
      hooks: [options.hooks],
      entryPoint: options.entryPoint,
      // In a recording, finish() throws only when the circuit breaker stopped the run (graded and written
      // like any other run, and returned as the error) or when the capture failed (thrown, nothing kept).
      finishRule: 'record',
      grade: { agent, oracles: options.oracles },
    },
    fn,
  )
  const { run, output, error, results, stored } = ended
  let cassettePath: string | undefined
  // Written after the run was stored: a cassette that fails to write throws, and the journal of a run
  // must not outlive it.
  if (options.cassette !== undefined) {
    writeCassette(options.cassette, run, { redactor: ended.session.redactor })
    cassettePath = options.cassette
  }
  return { run, output, error, results, cassettePath, stored }
}
