import { CrashlabError } from '../errors.ts'
import { DEFAULT_PATTERNS } from './internal/default-patterns.ts'
import { globalRules } from './internal/global-rules.ts'
import { jsonKeyRules } from './internal/json-key-rules.ts'
import { redactWalk, type WalkState } from './internal/redact-walk.ts'
import { compileRules, type RuleSet } from './internal/rule-set.ts'
import { createKeyMatcher } from './internal/sensitive-keys.ts'
import type { HookRule, PatternRule, RedactionConfig, RedactionResult, Redactor } from './types.ts'

interface Compiled {
  version: number
  patterns: readonly PatternRule[]
  rules: RuleSet
  isSensitive: (key: string) => boolean
  hooks: readonly HookRule[]
}

function toHookList(hooks: RedactionConfig['hooks']): HookRule[] {
  const list = Array.isArray(hooks) ? hooks : Object.entries(hooks ?? {}).map(([id, fn]) => ({ id, fn }))
  for (const h of list) {
    if (!h || typeof h.id !== 'string' || !h.id || typeof h.fn !== 'function') {
      throw new CrashlabError(
        'E_REDACTION_RULE',
        `redaction hook ${JSON.stringify(h?.id ?? null)} needs an id and a function; check the \`redaction.hooks\` of your crashlab config`,
        { subject: String(h?.id ?? '') },
      )
    }
  }
  return list
}

/**
 * Compiles a set of redaction rules: crashlab's defaults (unless `useDefaults: false`), the given
 * patterns, keys and hooks, and (unless `useGlobalRules: false`) the process-wide rules added through
 * `redaction.*`, read again whenever they change. Invalid rules throw `E_REDACTION_RULE` here, at
 * configuration time, rather than at the first write.
 *
 * @example
 * const redactor = createRedactor({
 *   patterns: [{ id: 'acme-ticket', pattern: /\bACME-\d{6}\b/ }],
 *   keys: ['x-tenant-secret'],
 *   hooks: { emails: (v) => v.replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, '[REDACTED:email]') },
 * })
 * redactor.redact({ headers: { 'X-Tenant-Secret': 'abc' } }).value // { headers: { 'X-Tenant-Secret': '[REDACTED:sensitive-key]' } }
 */
export function createRedactor(config: RedactionConfig = {}): Redactor {
  const useDefaults = config.useDefaults ?? true
  const useGlobal = config.useGlobalRules ?? true
  const ownPatterns = [...(config.patterns ?? [])]
  const ownKeys = [...(config.keys ?? [])]
  const ownHooks = toHookList(config.hooks)
  let compiled: Compiled | undefined = build(useGlobal ? globalRules().version : -1)

  function build(version: number): Compiled {
    const g = useGlobal ? globalRules() : undefined
    const patterns = [
      ...(useDefaults ? DEFAULT_PATTERNS : []),
      ...ownPatterns,
      ...(g ? g.patterns.values() : []),
    ]
    const isSensitive = createKeyMatcher([...ownKeys, ...(g ? g.keys : [])], useDefaults)
    const hooks = [...ownHooks, ...(g ? [...g.hooks].map(([id, fn]) => ({ id, fn })) : [])]
    return { version, patterns, rules: compileRules(patterns, jsonKeyRules(isSensitive)), isSensitive, hooks }
  }

  function current(): Compiled {
    const version = useGlobal ? globalRules().version : -1
    if (!compiled || compiled.version !== version) compiled = build(version)
    return compiled
  }

  function run<T>(value: T, tokens: (string | number)[], key: string | undefined): RedactionResult<T> {
    const c = current()
    const state: WalkState = {
      rules: c.rules,
      isSensitive: c.isSensitive,
      hooks: c.hooks,
      records: [],
      warnings: [],
      partial: false,
    }
    const out = redactWalk(value, state, tokens, key, false) as T
    return { value: out, records: state.records, partial: state.partial, warnings: state.warnings }
  }

  return {
    redact: (doc) => run(doc, [], undefined),
    redactString: (value, path = '', key) => {
      // The caller's path is kept as one opaque token prefix: records then read `path` exactly.
      const result = run(value, [], key)
      for (const r of result.records) r.path = path + r.path
      return result
    },
    isSensitiveKey: (key) => current().isSensitive(key),
    patterns: () => current().patterns,
  }
}
