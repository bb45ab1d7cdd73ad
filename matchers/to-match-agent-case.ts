import { relative, resolve } from 'node:path'
import type { MatcherState, SyncMatcherResult } from 'vitest'
import {
  type AgentCase,
  type CassetteStore,
  type CompareResult,
  CrashlabError,
  compare,
  compareAgentCases,
  formatDifferences,
  toAgentCase,
  trajectoryOf,
} from '../src/internal.ts'
import { asRunView, plural } from './internal/as-run-view.ts'
import { asWritten, countBaseline, updatePolicy } from './internal/baseline-store.ts'
import { type BaselineTest, baselineTestOf } from './internal/baseline-test.ts'
import { workerCassetteStore } from './internal/worker-store.ts'

/**
 * The regression snapshot of an agent run, with Vitest's snapshot rules: a missing baseline is written
 * (never under CI), `vitest -u` rewrites one that no longer matches, otherwise the run is compared with
 * it. The default `trajectory` mode compares what the agent did (events, tool names and arguments, tool
 * statuses, outcome, check verdicts) and ignores prose, ids and timings; the whole-case modes compare
 * the full AgentCase under the regression volatility rules plus the writing machine's identity.
 */

/**
 * How `toMatchAgentCase` compares: `trajectory` (default) compares `trajectoryOf` both cases in
 * normalized mode; `exact`, `structural` and `normalized` compare the whole cases with
 * `compareAgentCases` in that mode.
 *
 * @example
 * const mode: AgentCaseMatchMode = 'trajectory'
 */
export type AgentCaseMatchMode = 'trajectory' | 'exact' | 'structural' | 'normalized'

/**
 * Options of `toMatchAgentCase`.
 *
 * @example
 * expect(run).toMatchAgentCase('final', { mode: 'normalized', ignoredPaths: ['$.metadata.user_metadata'] })
 */
export interface MatchAgentCaseOptions {
  /** Default `trajectory`. */
  mode?: AgentCaseMatchMode
  /**
   * The baseline file; default `<cassetteDir>/<test file>/<test name>[.<name>].agentcase`, beside the
   * test's cassette (`cassetteDir`: the plugin's option, default `__cassettes__` beside the test file).
   */
  path?: string
  /** Whole-case modes only: more locations to leave out (path patterns, as `compareAgentCases` takes). */
  ignoredPaths?: string[]
}

const MODES: readonly AgentCaseMatchMode[] = ['trajectory', 'exact', 'structural', 'normalized']

/**
 * Where the writing machine shows through a case: not behaviour, so whole-case modes leave it out (a
 * baseline written on a laptop must match on CI). The crashlab run id is the run's identity, volatile
 * like the case and execution ids derived from it.
 *
 * @example
 * compareAgentCases(baseline, candidate, { mode: 'exact', ignoredPaths: [...MACHINE_PATHS] })
 */
export const MACHINE_PATHS: readonly string[] = Object.freeze([
  '$.metadata.runtime',
  '$.metadata.platform',
  '$.metadata.reproagent_version',
  '$.metadata.integration',
  "$.extensions['dev.crashlab'].run.id",
])

/**
 * `expect(run).toMatchAgentCase(name?, options?)`: the run matches its committed `.agentcase` baseline.
 * A missing baseline is written (reported by Vitest as written) unless the update policy is `none` (CI),
 * where it fails; under `vitest -u` a baseline that differs is rewritten. A failure lists the differing
 * paths and says that `vitest -u` accepts the change. `.not` is not supported, as with Vitest's own
 * snapshot matchers.
 *
 * @example
 * expect(run).toMatchAgentCase()
 * expect(run).toMatchAgentCase('after-refund', { mode: 'normalized' })
 * expect(run).toMatchAgentCase({ path: 'baselines/refund.agentcase' })
 */
export function toMatchAgentCase(
  this: MatcherState,
  received: unknown,
  nameOrOptions?: string | MatchAgentCaseOptions,
  maybeOptions?: MatchAgentCaseOptions,
): SyncMatcherResult {
  const { run } = asRunView(received, 'toMatchAgentCase')
  if (this.isNot) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      'toMatchAgentCase cannot be used with .not (a baseline is written or compared, never negated). ' +
        'To assert that a run differs from a baseline, compare cases with compareAgentCases.',
    )
  }
  const name = typeof nameOrOptions === 'string' ? nameOrOptions : undefined
  const options =
    (typeof nameOrOptions === 'object' && nameOrOptions !== null ? nameOrOptions : maybeOptions) ?? {}
  const mode = options.mode ?? 'trajectory'
  if (!MODES.includes(mode)) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      `toMatchAgentCase: mode must be one of ${MODES.join(', ')}, got ${String(mode)}.`,
    )
  }
  // The run's own test, not `this`: under test.concurrent the global expect's state names another test.
  const test = baselineTestOf(run, this)
  const store = workerCassetteStore()
  const path = baselinePath(store, test, name, options.path)
  const countKey = test?.id ?? test?.name ?? 'unknown test'
  const near = relative(process.cwd(), path)
  const shown = near === '' || near.startsWith('..') ? path : near
  const policy = updatePolicy(this)
  const candidate = asWritten(toAgentCase(run))
  const hint = this.utils.matcherHint('toMatchAgentCase', 'run', name === undefined ? '' : 'name')
  const ok = (message: string): SyncMatcherResult => ({ pass: true, message: () => `${hint}\n\n${message}` })
  const fail = (message: string): SyncMatcherResult => ({
    pass: false,
    message: () => `${hint}\n\n${message}`,
  })

  if (!store.exists(path)) {
    if (policy === 'none') {
      return fail(
        `No AgentCase baseline at ${shown}, and baselines are not written on CI (Vitest's snapshot update policy is ` +
          `'none'). Run \`vitest\` (or \`vitest -u\`) locally to write it, review it and commit it.`,
      )
    }
    store.writeBaseline(path, candidate)
    countBaseline(this, 'added', countKey)
    return ok(`wrote the baseline ${shown}`)
  }

  let baseline: AgentCase
  try {
    baseline = store.readBaseline(path)
  } catch (err) {
    if (policy === 'all')
      return rewrite(this, store, countKey, path, candidate, ok, `rewrote the unreadable baseline ${shown}`)
    const why = err instanceof Error ? err.message : String(err)
    return fail(
      `The AgentCase baseline ${shown} cannot be read:\n${why}\nRun \`vitest -u\` to write it again.`,
    )
  }
  const result = compareCases(baseline, candidate, mode, options.ignoredPaths)
  if (result.equal) {
    countBaseline(this, 'matched', countKey)
    return ok(`the run matches ${shown} (${mode} mode)`)
  }
  if (policy === 'all')
    return rewrite(this, store, countKey, path, candidate, ok, `rewrote the baseline ${shown}`)
  const n = result.differences.length
  return fail(
    `The run differs from its AgentCase baseline ${shown}: ${plural(n, 'difference')} in ${mode} mode ` +
      `(expected is the baseline, got is this run):\n${formatDifferences(result.differences)}\n` +
      'If the change is intended, run `vitest -u` to accept it as the new baseline; otherwise fix the agent.',
  )
}

function rewrite(
  state: MatcherState,
  store: CassetteStore,
  countKey: string,
  path: string,
  candidate: AgentCase,
  ok: (message: string) => SyncMatcherResult,
  message: string,
): SyncMatcherResult {
  store.writeBaseline(path, candidate)
  countBaseline(state, 'updated', countKey)
  return ok(message)
}

function compareCases(
  baseline: AgentCase,
  candidate: AgentCase,
  mode: AgentCaseMatchMode,
  ignoredPaths: string[] = [],
): CompareResult {
  if (mode === 'trajectory')
    return compare(trajectoryOf(baseline), trajectoryOf(candidate), { mode: 'normalized' })
  return compareAgentCases(baseline, candidate, { mode, ignoredPaths: [...MACHINE_PATHS, ...ignoredPaths] })
}

/** The baseline's path: `{ path }` against the working folder, else the store's rule for the run's test. */
function baselinePath(
  store: CassetteStore,
  test: BaselineTest | undefined,
  name: string | undefined,
  path: string | undefined,
): string {
  if (path !== undefined) return resolve(path)
  if (test === undefined) {
    throw new CrashlabError(
      'E_MATCHER_USAGE',
      'toMatchAgentCase needs the current test file and name to place the baseline, and this run was not ' +
        "made by a test (agentCase or the agent fixture): call it inside a test (through the test's own " +
        '`expect` under test.concurrent), or pass { path }.',
    )
  }
  return store.baselinePath(test.file, test.name, name)
}
