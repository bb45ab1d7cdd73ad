import type { Run } from '../case/schema/run.ts'
import type { SessionOptions } from '../engine/session.ts'

/**
 * The record mode of a test run: what every test does with its cassette. One strategy object per mode
 * (RECORD_MODE_STRATEGIES) says what that means:
 * - `replay`: never touches the network; a test that calls a model without a cassette fails;
 * - `missing`: records the tests that have no cassette, replays the others;
 * - `all`: records every test the run touches again;
 * - `diverged`: replays each cassette up to the test's first divergence and records live from there,
 *   keeping the replayed prefix as it was; a test that matches its cassette fully writes nothing, one
 *   without a cassette is recorded;
 * - `off`: sends every call to the live provider, reads and writes no cassette (the run is still
 *   captured in memory, so it is graded and asserted on).
 *
 * @example
 * const mode: RecordMode = process.env.CI ? 'replay' : 'missing'
 */
export type RecordMode = 'replay' | 'missing' | 'all' | 'diverged' | 'off'

/**
 * What one test does with its cassette file:
 * - `replay`: reads it and replays it (a missing one is replayed as an empty recording, see
 *   `RecordPlan.cassetteMissing`);
 * - `record`: writes it when the test ends, if the run has steps;
 * - `passthrough`: neither reads nor writes it. The calls go live and are still captured, in memory,
 *   by a `record` Session (mode `off`, and `live()` tests in every mode).
 *
 * The cassette action `passthrough` is not the Session mode `passthrough` (SessionMode): that one keeps
 * crashlab out of the calls altogether, nothing is captured, and no record mode opens it.
 *
 * @example
 * const action: CassetteAction = existsSync(path) ? 'replay' : 'record'
 */
export type CassetteAction = 'replay' | 'record' | 'passthrough'

/**
 * What a strategy knows of a test's cassette. Plain values, so that the decision can be made (and
 * tested) without a file system.
 *
 * @example
 * const cassette: CassetteInputs = { path, exists: existsSync(path), load: () => loadCassette(path).run }
 */
export interface CassetteInputs {
  /** Where the cassette lives; undefined for a run that writes no cassette file (`record()` without `cassette`). */
  path?: string
  /** True when a cassette file is at `path` now. Default false. */
  exists?: boolean
  /** Reads the recorded run at `path`; called only by a mode that replays an existing cassette. Default: `loadCassette(path).run`. */
  load?: () => Run
}

/**
 * The Session options every test shares whatever its mode (name, label, redactor, matching rules,
 * hooks): a strategy adds `mode`, `recorded`, `onDivergence`, `forkAt` and `cassettePath`.
 *
 * @example
 * const common: CommonSessionOptions = { label: 'refund > clean refund', redactor, hooks: checks.hooks }
 */
export type CommonSessionOptions = Omit<
  SessionOptions,
  'mode' | 'recorded' | 'onDivergence' | 'forkAt' | 'cassettePath'
>

/**
 * What a test does, as its strategy decided: the Session to open and what to do with the cassette.
 * What happens when the run ends is the same rule for every plan (`actionAfterRun`,
 * `shouldWriteCassette`); it differs between modes only through the Session options here.
 *
 * @example
 * const plan = RECORD_MODE_STRATEGIES.missing.open({ path, exists: false }, common)
 * const session = new Session(plan.session) // a record Session; the cassette is written at the end
 */
export interface RecordPlan {
  /** What the test does with its cassette when it starts; `actionAfterRun` gives it once the run ended. */
  action: CassetteAction
  /** The cassette the test reads or writes (for `passthrough`, the one it leaves alone). */
  cassettePath: string | undefined
  /**
   * A `replay` with no cassette on disk: the Session replays an empty recording, so a test that never
   * calls a model passes, and the first call that does fails the test with `E_CASSETTE_MISSING`,
   * naming the record command (`missingCassetteError`).
   */
  cassetteMissing: boolean
  /** The options of the test's Session: `new Session(plan.session)`. */
  session: SessionOptions
}

/**
 * One record mode as a strategy: from what is on disk, what the test opens.
 *
 * @example
 * const plan = strategyFor('diverged').open({ path, exists: true, load }, common)
 * plan.session.onDivergence // 'record'
 */
export interface RecordModeStrategy {
  readonly mode: RecordMode
  /** What the mode means for a user, in one line (for messages and docs). */
  readonly summary: string
  open(cassette: CassetteInputs, common: CommonSessionOptions): RecordPlan
}
