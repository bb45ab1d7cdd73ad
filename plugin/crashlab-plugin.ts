import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ulid } from 'ulid'
import type { Plugin } from 'vite'
// The `configureVitest` hook is declared on Vite's Plugin type by Vitest's config types.
import type {} from 'vitest/config'
import type { RecordMode } from '../fixtures/index.ts'
import {
  type ChecksOptions,
  configStamp,
  EXPORTED_TAG,
  loadConfig,
  mergeConfig,
  type PriceOverride,
  packageModule,
  resolveChecksOptions,
  resolveMode,
  sessionTag,
  TASK_FILE_SUFFIX,
  validateConfig,
  writeTaskFiles,
} from '../src/internal.ts'
import type { SessionIndexOptions } from './internal/session-index.ts'
import type { ProvidedCrashlabConfig } from './provided-config.ts'
import { CrashlabReporter } from './reporter.ts'
import {
  type MatchingPluginOptions,
  type RedactionOptions,
  serializeSessionOptions,
} from './session-options.ts'
import { CrashlabVerifyReporter } from './tasks/verify-reporter.ts'

/**
 * Options of the `crashlab()` Vitest plugin.
 *
 * @example
 * crashlab({ cassetteDir: '__cassettes__', hosts: ['https://gateway.example.com/v1'], otherHosts: 'error' })
 */
export interface CrashlabPluginOptions {
  /**
   * Where cassettes live, resolved against each test file's folder; an absolute path is used as is.
   * A test's cassette is `<cassetteDir>/<test file name>/<test's full name>.cassette.json`.
   * Default `__cassettes__`.
   */
  cassetteDir?: string
  /**
   * More hosts or base URLs to record and replay, besides the OpenAI, Anthropic and Gemini APIs. A model
   * call is recognised by its wire shape (method, path and body) on any host without this; list here
   * what cannot be recognised (another API, a gateway with its own paths).
   */
  hosts?: string[]
  /**
   * What requests to other hosts get inside a test: `error` (refused in every mode, loopback too) or
   * `passthrough` (the network; a replay still refuses model calls). Default: the replay rule in a
   * replay (loopback and `allowHosts` pass, the rest is refused), the network otherwise.
   */
  otherHosts?: 'error' | 'passthrough'
  /**
   * Hosts a replay may reach besides loopback, with requests that are not model calls (a database or
   * service container): host names (any port), `host:port` or base URLs. Added to the config file's
   * `allowHosts`. Default: none.
   */
  allowHosts?: string[]
  /**
   * The record mode when no switch says otherwise (`CRASHLAB_RECORD`, `--record`, `--mode record` win).
   * Default: `replay` when Vitest writes no snapshots (`CI=true`), else `missing`.
   */
  mode?: RecordMode
  /** Starts crashlab's MSW interceptor in each worker. Default true; with false only `wrap(client)` clients are seen. */
  intercept?: boolean
  /**
   * Redaction rules of every test, added to crashlab's defaults and to `redaction.*` rules: used for the
   * request hash and when cassettes are written. Hooks are named by module path (see RedactionOptions).
   */
  redaction?: RedactionOptions
  /** Matching rules of every test, at record and replay alike: ignored params and normalizer modules. */
  matching?: MatchingPluginOptions
  /**
   * Runtime checks of every test (budgets, detector thresholds, the circuit breaker), over the config
   * file's `checks`; a test's own `agentCase(fn, { checks })` wins over both.
   */
  checks?: ChecksOptions
  /** Price overrides in USD per million tokens, keyed by model or `provider/model`, over the config file's. */
  prices?: Record<string, PriceOverride>
  /**
   * The project config file: a path (against the project root), or `false` to read none. Default: the
   * `crashlab.config.ts` (or .mts/.js/.mjs) found from the project root, or `$CRASHLAB_CONFIG`.
   */
  config?: string | false
  /**
   * Diagnose, fix and verify the failed agent runs of each Vitest run, as Vitest tasks reported in its
   * output. Each failed `agentCase` run is saved to the run store tagged `session:<id>`, and two projects
   * run after yours: `crashlab:diagnose` (a diagnosis per failed run, and fixes when a model is
   * configured) and `crashlab:verify` (one task per fork of the best fix's verification: `k` patched, `k`
   * controls, past good runs). The two projects get group orders 1000 and 1001, so they run after every
   * project below 1000; a project of group order 0 that uses the plugin is moved to 1 (Vitest would
   * otherwise run it last on a one-worker machine). Default off.
   */
  tasks?: boolean | CrashlabTasksPluginOptions
  /**
   * How many Vitest sessions (test runs) to keep indexed in the run store: after each run the reporter
   * indexes every test's cassette there, with the test's file and name, for `crashlab ls --session last`
   * and for `crashlab show|report|diagnose|fork|export-test <cassette path | "file > test name">`.
   * Older sessions' entries are dropped (the cassettes stay). `0` turns the indexing off. Default: the
   * config file's `store.keepSessions`, else 20.
   */
  keepSessions?: number
}

/**
 * Options of the plugin's `tasks`.
 *
 * @example
 * crashlab({ tasks: { k: 5, slots: 4 } })
 */
export interface CrashlabTasksPluginOptions {
  /**
   * Trials per arm of each verification: a fixed k (the session's tasks run in one pass, without the
   * rounds of `crashlab verify --vitest`). Default 5, the fewest that can reach VERIFIED at 5 %.
   */
  k?: number
  /** Task files the work is dealt over (the worker pool runs them in parallel). Default 4. */
  slots?: number
  /** Propose fixes when a fixer model is configured. Default true. */
  fix?: boolean
}

const SETUP_FILE = packageModule('plugin/setup.ts')

/**
 * The crashlab Vitest plugin: adds its setup file (which starts the MSW interceptor in each worker and
 * gives each test its Session), resolves the record mode and hands it to the workers, and adds its
 * reporter next to the user's reporters.
 *
 * @example
 * // vitest.config.ts
 * import { defineConfig } from 'vitest/config'
 * import { crashlab } from 'crashlab/vitest'
 * export default defineConfig({ plugins: [crashlab()] })
 */
export function crashlab(options: CrashlabPluginOptions = {}): Plugin {
  // Checked now, so that a function where a module path belongs fails when the config loads.
  serializeSessionOptions(options, process.cwd())
  // Only what was given: the schema (and zod) loads when there is something to check.
  if (options.checks !== undefined || options.prices !== undefined)
    validateConfig({ checks: options.checks, prices: options.prices }, 'the crashlab() plugin options')
  if (
    options.keepSessions !== undefined &&
    !(Number.isInteger(options.keepSessions) && options.keepSessions >= 0)
  ) {
    throw new TypeError(
      `[crashlab] crashlab({ keepSessions }) is a whole number ≥ 0 (0 turns the session index off); got ${JSON.stringify(options.keepSessions)}`,
    )
  }
  let viteMode: string | undefined
  let mode: RecordMode = options.mode ?? 'missing'
  let index: SessionIndexOptions | undefined
  const reporter = new CrashlabReporter({
    getCassetteDir: () => options.cassetteDir,
    getMode: () => mode,
    getIndexOptions: () => index,
    // `crashlab vitest --prune` (Vitest's own CLI refuses flags it does not know, so it comes by the env).
    getPrune: () => process.env.CRASHLAB_PRUNE === '1',
  })
  return {
    name: 'crashlab',
    config(config, env) {
      viteMode = env.mode
      config.test ??= {}
      const test = config.test
      const setupFiles = test.setupFiles === undefined ? [] : [test.setupFiles].flat()
      // First: the interceptor must be up before the user's setup files create SDK clients.
      if (!setupFiles.includes(SETUP_FILE)) test.setupFiles = [SETUP_FILE, ...setupFiles]
      addReporter(test, reporter)
      // The tag of the regression tests `crashlab export-test` writes: declared, since Vitest refuses
      // undeclared tags, so `vitest --tags-filter=crashlab-exported` runs them alone.
      test.tags ??= []
      const tags = test.tags
      if (!tags.some((t) => t.name === EXPORTED_TAG)) {
        tags.push({ name: EXPORTED_TAG, description: 'regression tests written by `crashlab export-test`' })
      }
    },
    async configureVitest({ project, vitest, injectTestProjects }) {
      // Read (and validated) now, so that a bad key stops the run before any test, naming the key.
      const file = await loadConfig({ cwd: project.config.root, file: options.config })
      // The checks each worker layers (the file's under the plugin's), checked once here: a bad mix stops
      // the run before any test, and a worker that finds the file unchanged trusts them (plugin/setup.ts).
      resolveChecksOptions(mergeConfig(file.config, { checks: options.checks }).checks)
      // `--reporter` on the command line replaces the configured list: add ours back before Vitest builds them.
      const reporters = vitest.config.reporters as unknown[]
      if (!reporters.includes(reporter)) reporters.push(reporter)
      const resolved = resolveMode({
        env: process.env,
        argv: process.argv,
        viteMode,
        option: options.mode,
        updateSnapshot: project.config.snapshotOptions?.updateSnapshot,
      })
      mode = resolved.mode
      index = {
        root: vitest.config.root,
        ...(options.config !== undefined && { config: options.config }),
        ...(options.keepSessions !== undefined && { keepSessions: options.keepSessions }),
      }
      const provided: ProvidedCrashlabConfig = {
        mode: resolved.mode,
        modeSource: resolved.source,
        intercept: options.intercept ?? true,
      }
      if (options.tasks && !process.env.CRASHLAB_REPLAY_RUN && !sessions.has(vitest)) {
        // One session per Vitest run, however many projects use the plugin; never in the Vitest child of
        // a replay or a fork (which would verify its own forks).
        const tasks = options.tasks === true ? {} : options.tasks
        const session = await addSessionProjects(vitest, injectTestProjects, {
          root: project.config.root,
          config: options.config,
          k: tasks.k ?? 5,
          slots: tasks.slots ?? 4,
          fix: tasks.fix ?? true,
        })
        sessions.set(vitest, session)
      }
      const session = sessions.get(vitest)
      if (session) {
        provided.session = session
        // Vitest runs the files of a project with group order 0 and one worker (a 2-core machine) in a
        // last group of their own, after every numbered group: moved to group 1, they run before the tasks.
        if (project.config.sequence.groupOrder === 0) project.config.sequence.groupOrder = 1
      }
      if (options.cassetteDir !== undefined) provided.cassetteDir = options.cassetteDir
      if (options.hosts !== undefined) provided.hosts = [...options.hosts]
      if (options.otherHosts !== undefined) provided.otherHosts = options.otherHosts
      const allowHosts = [...(file.config.allowHosts ?? []), ...(options.allowHosts ?? [])]
      if (allowHosts.length > 0) provided.allowHosts = allowHosts
      if (file.path) {
        provided.configPath = file.path
        provided.configStamp = configStamp(file.path)
      }
      if (options.checks !== undefined) provided.checks = options.checks
      if (options.prices !== undefined) provided.prices = options.prices
      Object.assign(provided, serializeSessionOptions(options, project.config.root))
      project.provide('crashlab', provided)
    },
  }
}

const sessions = new WeakMap<object, { id: string; storeDir: string }>()

/** The group order of the `crashlab:diagnose` project (`crashlab:verify` is the next one). */
const TASKS_GROUP_ORDER = 1000

/**
 * The plugin's `tasks`: writes the session's task files to a temporary folder (removed when Vitest
 * closes), adds the `crashlab:diagnose` and `crashlab:verify` projects after every other, and the
 * verdict reporter.
 */
async function addSessionProjects(
  vitest: Parameters<NonNullable<Plugin['configureVitest']>>[0]['vitest'],
  injectTestProjects: Parameters<NonNullable<Plugin['configureVitest']>>[0]['injectTestProjects'],
  options: {
    root: string
    config: string | false | undefined
    k: number
    slots: number
    fix: boolean
  },
): Promise<{ id: string; storeDir: string }> {
  const id = ulid()
  const { resolveStoreDir } = await import('../src/on-demand.ts')
  const storeDir = await resolveStoreDir({
    cwd: options.root,
    ...(options.config !== undefined && { config: options.config }),
  })
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-tasks-'))
  vitest.onClose(() => rmSync(dir, { recursive: true, force: true }))
  writeTaskFiles(dir, 'diagnose', 'defineDiagnoseTasks', options.slots)
  writeTaskFiles(dir, 'verify', 'defineSessionVerifyTasks', options.slots)
  const provide = {
    crashlabTasks: {
      storeDir,
      cwd: options.root,
      select: { tag: sessionTag(id) },
      k: options.k,
      slots: options.slots,
      fix: options.fix,
    },
  }
  const project = (kind: 'diagnose' | 'verify', groupOrder: number) => ({
    extends: false as const,
    root: options.root,
    test: {
      name: `crashlab:${kind}`,
      dir,
      include: [`${kind}-*${TASK_FILE_SUFFIX}`],
      provide,
      testTimeout: 10 * 60_000,
      sequence: { groupOrder },
    },
  })
  // After every project of the user's below group order TASKS_GROUP_ORDER. (Vitest keeps its groups in
  // an array indexed by the order: a number in the millions overflows its stack.)
  await injectTestProjects([project('diagnose', TASKS_GROUP_ORDER), project('verify', TASKS_GROUP_ORDER + 1)])
  const reporters = vitest.config.reporters as unknown[]
  if (!reporters.some((r) => r instanceof CrashlabVerifyReporter)) {
    reporters.push(new CrashlabVerifyReporter({ storeDir }))
  }
  return { id, storeDir }
}

/**
 * Adds crashlab's reporter to the user's list in place: returning `reporters` from `config()` would be
 * merged with, and duplicate, the user's own.
 */
function addReporter(test: { reporters?: unknown }, reporter: CrashlabReporter): void {
  const current = test.reporters
  if (current === undefined) {
    // What Vitest uses when no reporter is configured.
    test.reporters =
      process.env.GITHUB_ACTIONS === 'true' ? ['default', 'github-actions', reporter] : ['default', reporter]
  } else if (Array.isArray(current)) {
    if (!current.includes(reporter)) current.push(reporter)
  } else {
    test.reporters = [current, reporter]
  }
}
