import type { RecordMode } from '../fixtures/index.ts'
import type { ChecksOptions, PriceOverride } from '../src/internal.ts'
import type { ProvidedSessionOptions } from './session-options.ts'

/**
 * What the plugin hands to each worker with `project.provide('crashlab', …)`; the setup file reads it
 * with `inject('crashlab')`.
 *
 * @example
 * const config: ProvidedCrashlabConfig = { mode: 'replay', modeSource: 'default under CI', intercept: true }
 */
export interface ProvidedCrashlabConfig extends ProvidedSessionOptions {
  mode: RecordMode
  /** What decided the mode (`CRASHLAB_RECORD=all`, `--mode record`, `default under CI`), for messages. */
  modeSource: string
  cassetteDir?: string
  hosts?: string[]
  otherHosts?: 'error' | 'passthrough'
  /** Hosts a replay may reach besides loopback: the config file's `allowHosts`, then the plugin's. */
  allowHosts?: string[]
  /** False when the plugin was told not to start the MSW interceptor (`intercept: false`). */
  intercept: boolean
  /** The project config file the plugin found and validated; each worker reads it again (hooks are functions). */
  configPath?: string
  /**
   * The file's `configStamp` when the plugin validated it, with the checks layered from it and the
   * plugin's options: a worker that finds the file unchanged trusts both instead of loading the schema.
   */
  configStamp?: string
  /** The plugin's own `checks` and `prices` options, layered over the config file's in each worker. */
  checks?: ChecksOptions
  prices?: Record<string, PriceOverride>
  /** With the plugin's `tasks`: the session whose failed runs are saved to the store, tagged `session:<id>`. */
  session?: { id: string; storeDir: string }
}

declare module 'vitest' {
  interface ProvidedContext {
    crashlab: ProvidedCrashlabConfig
  }
}
