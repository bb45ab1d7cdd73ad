import type { CrashlabConfig } from './schema.ts'

/**
 * Types the project config file; returns it unchanged. A function (sync or async) is accepted too, for
 * a config that needs to compute something.
 *
 * @example
 * // crashlab.config.ts
 * import { defineConfig } from 'crashlab'
 * export default defineConfig({
 *   checks: { maxSteps: 20, maxCostUsd: 0.1, circuitBreaker: true, stepRepetition: { threshold: 3 } },
 *   prices: { 'acme/my-model': { input: 0.5, output: 1.5 } },
 *   redaction: { keys: ['x-tenant-secret'] },
 *   store: { dir: '.crashlab' },
 * })
 */
export function defineConfig<
  const C extends CrashlabConfig | (() => CrashlabConfig | Promise<CrashlabConfig>),
>(config: C): C {
  return config
}
