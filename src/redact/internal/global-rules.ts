import type { PatternRule, RedactionHook } from '../types.ts'

/**
 * The process-wide user rules behind `redaction.addPattern/addKey/addHook`. They live on `globalThis`
 * under a registered symbol, so that two copies of crashlab in one process (the plugin's setup file and
 * a test importing the package through another path) still share one set: a rule registered in one
 * must protect the writes of the other.
 */
export interface GlobalRules {
  /** Bumped on every change; redactors recompile when it moves. */
  version: number
  patterns: Map<string, PatternRule>
  keys: Set<string>
  hooks: Map<string, RedactionHook>
}

const SLOT = Symbol.for('crashlab.redaction.global-rules')

/**
 * The shared rule set, created on first use.
 *
 * @example
 * globalRules().keys.size // 0 until `redaction.addKey` is called
 */
export function globalRules(): GlobalRules {
  const g = globalThis as { [SLOT]?: GlobalRules }
  g[SLOT] ??= { version: 0, patterns: new Map(), keys: new Set(), hooks: new Map() }
  return g[SLOT]
}
