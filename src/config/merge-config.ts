import type { HookRule } from '../redact/types.ts'
import type { CrashlabConfig } from './schema.ts'

/**
 * Layers configs, the nearer one last: `mergeConfig(fileConfig, pluginOptions, perTest)`. Objects merge
 * key by key (so `checks.stepRepetition.critical` set per test keeps the file's `threshold`); a value that
 * is not a plain object (a number, `false`, an array) replaces what was there. Redaction rules add up
 * instead: patterns, keys and hooks of every layer all apply. Undefined layers and keys are skipped.
 *
 * @example
 * mergeConfig({ checks: { maxSteps: 50, warnAt: 0.9 } }, { checks: { maxSteps: 20 } })
 * // { checks: { maxSteps: 20, warnAt: 0.9 } }
 */
export function mergeConfig(...layers: ReadonlyArray<CrashlabConfig | undefined>): CrashlabConfig {
  let out: Record<string, unknown> = {}
  for (const layer of layers) {
    if (!layer) continue
    const { redaction, ...rest } = layer
    out = mergeObjects(out, rest as Record<string, unknown>)
    if (redaction) out.redaction = mergeRedaction(out.redaction as CrashlabConfig['redaction'], redaction)
  }
  return out as CrashlabConfig
}

type Redaction = NonNullable<CrashlabConfig['redaction']>

function mergeRedaction(a: Redaction | undefined, b: Redaction): Redaction {
  if (!a) return b
  const out: Redaction = { ...a, ...b }
  if (a.patterns || b.patterns) out.patterns = [...(a.patterns ?? []), ...(b.patterns ?? [])]
  if (a.keys || b.keys) out.keys = [...(a.keys ?? []), ...(b.keys ?? [])]
  if (a.hooks || b.hooks) out.hooks = [...hookList(a.hooks), ...hookList(b.hooks)]
  return out
}

function hookList(hooks: Redaction['hooks']): HookRule[] {
  if (!hooks) return []
  if (Array.isArray(hooks)) return hooks
  return Object.entries(hooks).map(([id, fn]) => ({ id, fn }))
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function mergeObjects(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a }
  for (const [key, value] of Object.entries(b)) {
    if (value === undefined) continue
    const current = out[key]
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeObjects(current, value) : value
  }
  return out
}
