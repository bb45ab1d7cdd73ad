import type { JsonValue } from '../case/schema/json.ts'
import type { EntryPoint, Run } from '../case/schema/run.ts'
import type { ChecksOptions } from '../checks/detectors/options.ts'
import type { Oracle, OracleFn, OracleResult } from '../checks/oracles/types.ts'
import type { RuntimeChecks } from '../checks/runtime/runtime-checks.ts'
import type { CrashlabConfig } from '../config/schema.ts'
import type { PriceOverride } from '../cost/index.ts'
import type { Session, SessionOptions } from '../engine/session.ts'
import type { SessionHooks } from '../engine/types.ts'
import type { Redactor } from '../redact/types.ts'
import type { StoredRunSummary } from '../store/types.ts'

/**
 * What a throw of `session.finish()` means, and what happens to the agent's own error:
 * - `record`: `E_CIRCUIT_OPEN` is how the run ended (checked, graded, journaled and returned as
 *   `error`); any other throw is crashlab's own failure to capture the run: the journal is abandoned and
 *   the error thrown, unless `onCaptureFailure` takes it (a long-lived capture must never throw).
 * - `replay`: any throw (a divergence, steps left unused, a halt) is the run's failure: the run is
 *   marked failed with it (`markFailed`) and it comes back as `error`.
 * - `test`: any throw fails the caller (a replay failure the agent swallowed still fails the test); a run
 *   whose agent threw is checked but not graded, and `runAgent` then throws the agent's error unchanged.
 *
 * @example
 * const rule: FinishRule = session.mode === 'replay' ? 'replay' : 'record'
 */
export type FinishRule = 'record' | 'replay' | 'test'

/**
 * Where the run is kept while it runs (the run store's journal of `record` and `capture`): its hooks
 * come first, so a step is kept before any other hook (the circuit breaker) acts on it.
 *
 * @example
 * const journal: AgentRunJournal = { hooks: {}, start() {}, finish: () => undefined, abandon() {} }
 */
export interface AgentRunJournal {
  readonly hooks?: SessionHooks
  /** Called once the Session's run has its name, input and entry point. */
  start(session: Session): void
  /** Keeps the graded run (or the run as checked, when grading threw); what it was stored as. */
  finish(run: Run): StoredRunSummary | undefined
  /** crashlab failed to capture the run: nothing is kept. */
  abandon(): void
}

/**
 * The config file, checks, prices and redactor of a run, as `prepareAgentRun` reads and layers them.
 *
 * @example
 * const options: PrepareOptions = { config: false, checks: { maxSteps: 20 } }
 */
export interface PrepareOptions {
  /** The project config file: a path, or `false` for none. Default: the one found from `cwd`. */
  config?: string | false
  /** Where the config file is searched for. Default `process.cwd()`. */
  cwd?: string
  /** Read for `CRASHLAB_CONFIG`. Default `process.env`. */
  env?: NodeJS.ProcessEnv
  /** A config already loaded (once per test file, say): nothing is read. */
  loadedConfig?: CrashlabConfig
  /** Runtime checks over the config file's, key by key; kept with the run (`metadata.checks`). */
  checks?: ChecksOptions
  /** Prices over the config file's. */
  prices?: Record<string, PriceOverride>
  /** The redactor; default the config file's `redaction` rules, else none (the Session's default). */
  redactor?: Redactor
  /**
   * The runtime checks: built from the layered config by default; an instance already on an open
   * Session's hooks (the plan's `checks` are then layered onto it); `false` for none.
   */
  runtimeChecks?: RuntimeChecks | false
}

/**
 * What `prepareAgentRun` gives: the config, the runtime checks and the redactor of one run.
 *
 * @example
 * const { config, checks, redactor } = await prepareAgentRun({ cwd })
 */
export interface PreparedAgentRun {
  config: CrashlabConfig
  checks: RuntimeChecks | undefined
  redactor: Redactor | undefined
}

/**
 * The options of a Session the harness opens: it adds the name, the input, the redactor and the hooks.
 *
 * @example
 * const session: SessionPlan = { mode: 'replay', recorded: loadCassette(path).run, cassettePath: path }
 */
export type SessionPlan = Omit<SessionOptions, 'hooks' | 'redactor' | 'input' | 'name'>

/**
 * One agent run, described by what varies between callers; `startAgentRun` and `runAgent` do the rest.
 *
 * @example
 * const plan: AgentRunPlan<string> = { session: { mode: 'record' }, name: 'refund-bot', input: 'Refund A17', finishRule: 'record' }
 */
export interface AgentRunPlan<I = unknown> extends PrepareOptions {
  /** The config, checks and redactor already prepared (`prepareAgentRun`): the options above are then unused. */
  prepared?: PreparedAgentRun
  /** The Session to open, or one already open (its hooks must already hold `runtimeChecks`). */
  session: SessionPlan | Session
  /** What the agent is called with; stored as JSON data in the run. Default: the recorded input. */
  input?: I
  /** The run's name (the agent). Default: the Session's (the recorded run's, else `run`). */
  name?: string
  /** The caller's hooks, in order, after the journal's and before the runtime checks'. */
  hooks?: ReadonlyArray<SessionHooks | undefined>
  /** Opens the run's journal once the redactor is known; undefined for none. */
  journal?: (prepared: PreparedAgentRun) => AgentRunJournal | undefined | Promise<AgentRunJournal | undefined>
  entryPoint?: EntryPoint
  /** Set on the run before it starts (a replay keeps its source's). */
  metadata?: Record<string, JsonValue>
  /** Names the checks in a message when an open Session's checks come too late. */
  checksWhere?: string
  finishRule: FinishRule
  /** With `finishRule: 'record'`: takes capture and grading failures instead of throwing them. */
  onCaptureFailure?: (what: string, error: unknown) => void
  /** A failure of a run that ended cleanly, known only to the caller (a fork that never went live). */
  failIf?: (session: Session) => unknown
  /** Ends the Session and checks the run, when the caller owns more than `session.finish` (a test's state). */
  end?: (result: { output?: unknown; error?: unknown }) => Promise<Run>
  /** Grades the checked run with the agent's registered oracles and these; `false` (default) grades nothing. */
  grade?: { agent: string; oracles?: ReadonlyArray<Oracle | OracleFn> } | false
}

/**
 * A finished run: the run as checked and graded, the agent's answer or the error the run ended with.
 *
 * @example
 * const { run, output, error, errorFrom } = await runAgent(plan, agent)
 */
export interface EndedAgentRun<O = unknown> {
  run: Run
  /** The Session the run ran in (its redactor is the run's: write the cassette with it). */
  session: Session
  /** What the agent returned; undefined when it threw or the run failed. */
  output: O | undefined
  /** What the agent threw (unchanged), or why the run failed; undefined when it went through. */
  error: unknown
  /** Who the error is from: the agent itself, or the run (a divergence, a halt, `failIf`). */
  errorFrom: 'agent' | 'run' | undefined
  /** How each oracle went (none without `grade`). */
  results: OracleResult[]
  /** The run as the journal stored it. */
  stored: StoredRunSummary | undefined
}
