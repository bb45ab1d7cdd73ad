import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
// The `configureVitest` hook is declared on Vite's Plugin type by Vitest's config types.
import type {} from 'vitest/config'
import type { CrashlabMode } from '../fixtures/index.ts'
import {
  type ChecksOptions,
  EXPORTED_TAG,
  loadConfig,
  type PriceOverride,
  validateConfig,
} from '../src/index.ts'
import type { ProvidedCrashlabConfig } from './provided-config.ts'
import { CrashlabReporter } from './reporter.ts'
import { resolveMode } from './resolve-mode.ts'
import {
  type MatchingPluginOptions,
  type RedactionOptions,
  serializeSessionOptions,
} from './session-options.ts'

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
  /** More hosts or base URLs to record and replay, besides the OpenAI, Anthropic and Gemini APIs. */
  hosts?: string[]
  /** What requests to other hosts get inside a test: `error` or `passthrough` (default: `error` in replay, else `passthrough`). */
  otherHosts?: 'error' | 'passthrough'
  /**
   * The record mode when no switch says otherwise (`CRASHLAB_RECORD`, `--record`, `--mode record` win).
   * Default: `replay` when Vitest writes no snapshots (`CI=true`), else `missing`.
   */
  mode?: CrashlabMode
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
}

const SETUP_FILE = fileURLToPath(
  new URL(`./setup${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
)

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
  validateConfig({ checks: options.checks, prices: options.prices }, 'the crashlab() plugin options')
  let viteMode: string | undefined
  let mode: CrashlabMode = options.mode ?? 'missing'
  const reporter = new CrashlabReporter({ getCassetteDir: () => options.cassetteDir, getMode: () => mode })
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
    async configureVitest({ project, vitest }) {
      // Read (and validated) now, so that a bad key stops the run before any test, naming the key.
      const file = await loadConfig({ cwd: project.config.root, file: options.config })
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
      const provided: ProvidedCrashlabConfig = {
        mode: resolved.mode,
        modeSource: resolved.source,
        intercept: options.intercept ?? true,
      }
      if (options.cassetteDir !== undefined) provided.cassetteDir = options.cassetteDir
      if (options.hosts !== undefined) provided.hosts = [...options.hosts]
      if (options.otherHosts !== undefined) provided.otherHosts = options.otherHosts
      if (file.path) provided.configPath = file.path
      if (options.checks !== undefined) provided.checks = options.checks
      if (options.prices !== undefined) provided.prices = options.prices
      Object.assign(provided, serializeSessionOptions(options, project.config.root))
      project.provide('crashlab', provided)
    },
  }
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
