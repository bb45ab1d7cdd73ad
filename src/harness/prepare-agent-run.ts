import { RuntimeChecks } from '../checks/runtime/runtime-checks.ts'
import { loadConfig } from '../config/load-config.ts'
import { mergeConfig } from '../config/merge-config.ts'
import { createRedactor } from '../redact/create-redactor.ts'
import type { PreparedAgentRun, PrepareOptions } from './types.ts'

/**
 * The first steps of every agent run, in one place: the project config file (read as the plugin and
 * the CLI read it), the runtime checks layered config < options key by key (the nearer setting wins),
 * and the redactor (the given one, else the config file's `redaction` rules). Callers that need the
 * config before the Session opens (a replay starts its interceptor with the config's `allowHosts`)
 * call it first and hand the result to `startAgentRun` as `prepared`.
 *
 * @example
 * const prepared = await prepareAgentRun({ cwd, config: options.config, checks: storedChecks(source) })
 * const interceptor = interceptHostsOf(source, { outsideSession: 'replay', allowHosts: prepared.config.allowHosts })
 */
export async function prepareAgentRun(options: PrepareOptions = {}): Promise<PreparedAgentRun> {
  const config =
    options.loadedConfig ??
    (await loadConfig({ cwd: options.cwd, file: options.config, env: options.env })).config
  const redactor = options.redactor ?? (config.redaction ? createRedactor(config.redaction) : undefined)
  if (options.runtimeChecks === false) return { config, checks: undefined, redactor }
  if (options.runtimeChecks) return { config, checks: options.runtimeChecks, redactor }
  const layered = mergeConfig(config, { checks: options.checks, prices: options.prices })
  const checks = new RuntimeChecks({ checks: layered.checks, prices: layered.prices })
  return { config, checks, redactor }
}
