import { createRedactor } from '../create-redactor.ts'
import type { ScanOptions } from '../scan-types.ts'
import type { PatternRule } from '../types.ts'
import { createAllowList } from './allow-list.ts'
import type { EntropyOptions } from './entropy.ts'
import { jsonKeyRules } from './json-key-rules.ts'
import { compileRules, type RuleSet } from './rule-set.ts'

/** What the text and document scanners share: the redactor's own rules, compiled once per rule list. */
export interface ScanContext {
  file: string
  rules: RuleSet
  isSensitive: (key: string) => boolean
  allowed: (tokens: readonly (string | number)[]) => boolean
  /** `false` turns the entropy heuristic off. */
  entropy: EntropyOptions | false
}

let defaultRedactor: ReturnType<typeof createRedactor> | undefined
const compiledFor = new WeakMap<readonly PatternRule[], RuleSet>()

/**
 * Resolves scan options. The rules come from a redactor (the default one unless given), so the scanner
 * reports exactly what the redactor would have replaced, plus what only a heuristic can see.
 *
 * @example
 * const ctx = scanContext({ entropy: false })
 */
export function scanContext(options: ScanOptions = {}): ScanContext {
  defaultRedactor ??= createRedactor()
  const redactor = options.redactor ?? defaultRedactor
  const patterns = redactor.patterns()
  let rules = compiledFor.get(patterns)
  if (!rules) {
    rules = compileRules(patterns, jsonKeyRules(redactor.isSensitiveKey))
    compiledFor.set(patterns, rules)
  }
  const entropy = options.entropy === false ? false : options.entropy === true ? {} : (options.entropy ?? {})
  return {
    file: options.file ?? '<input>',
    rules,
    isSensitive: redactor.isSensitiveKey,
    allowed: createAllowList(options.allow),
    entropy,
  }
}
