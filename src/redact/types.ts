/**
 * The public types of the redaction component. They live apart from the implementation so that writers
 * (cassettes, AgentCase export, reports) can type against them without importing the rule tables.
 */

/**
 * One replaced location in a redacted document.
 *
 * @example
 * const record: RedactionRecord = { path: '/headers/authorization', rule: 'sensitive-key', marker: '[REDACTED:sensitive-key]' }
 */
export interface RedactionRecord {
  /** RFC 6901 JSON Pointer into the redacted document (`''` is the document itself). */
  path: string
  /** The id of the rule that fired, e.g. `sensitive-key`, `openai-key`, or a user rule's id. */
  rule: string
  /** The replacement text written, e.g. `[REDACTED:sensitive-key]`. */
  marker: string
}

/**
 * What `redactDocument` returns: the redacted copy and an account of what changed.
 *
 * @example
 * const { value, records, partial, warnings } = redactDocument(cassette)
 * if (partial) for (const w of warnings) console.warn(w)
 */
export interface RedactionResult<T> {
  value: T
  records: RedactionRecord[]
  /** A rule failed and the value it was looking at was dropped (written as `[REDACTED:rule-failed]`). */
  partial: boolean
  /** One line per failed rule, naming the rule and the path, never the value. */
  warnings: string[]
}

/**
 * A user hook: sees every string (after the built-in rules ran) and returns a replacement, or
 * `undefined` to leave it. A hook that throws drops the value and marks the result partial.
 *
 * @example
 * const hook: RedactionHook = (value) => value.replace(/\bACME-\d{6}\b/g, '[REDACTED:acme-id]')
 */
export type RedactionHook = (
  value: string,
  ctx: { path: string; key: string | undefined },
) => string | undefined

/**
 * A value pattern: every match inside every string is replaced by its marker.
 *
 * @example
 * const rule: PatternRule = { id: 'acme-key', pattern: /(?<pre>acme_key=)(?<secret>\w{24})/, hint: 'acme_key=' }
 */
export interface PatternRule {
  /** A stable id; it appears in records and in the default marker `[REDACTED:<id>]`. */
  id: string
  /**
   * The pattern. When it has a named group `secret`, only that group is replaced (so `Bearer ` or
   * `password=` stay readable); otherwise the whole match is.
   */
  pattern: RegExp
  /** The replacement text; `[REDACTED:<id>]` when omitted. */
  marker?: string
  /**
   * Cheap case-insensitive literals, one of which every match contains (`sk-`, `AKIA`). The redactor
   * tests one combined regex of all hints before running any pattern, so plain prose costs one scan.
   * A rule without a hint runs on every string.
   */
  hint?: string | readonly string[]
  /**
   * Decides whether a match is a secret after all: it gets the text that would be replaced (the
   * `secret` group, or the whole match) and returns `false` for a look-alike (a CSS class `sk-button-…`,
   * a documented example key, a placeholder). Length, alphabet, checksum and entropy checks live here,
   * so the pattern can stay simple. A validator that throws fails the rule like a pattern that throws.
   */
  validate?: (secret: string) => boolean
}

/**
 * A named hook, as given to `createRedactor`.
 *
 * @example
 * const hook: HookRule = { id: 'emails', fn: (v) => v.replace(/\S+@\S+\.\w+/g, '[REDACTED:email]') }
 */
export interface HookRule {
  id: string
  fn: RedactionHook
}

/**
 * Options of `createRedactor`. The config file maps onto it.
 *
 * @example
 * const config: RedactionConfig = { keys: ['x-tenant-secret'], useGlobalRules: false }
 */
export interface RedactionConfig {
  /** Extra value patterns, added to the defaults. */
  patterns?: PatternRule[]
  /** Extra sensitive keys; compared case-folded with only letters and digits kept. */
  keys?: string[]
  /** Hooks, run in order on every string after the patterns. */
  hooks?: HookRule[] | Record<string, RedactionHook>
  /** Include crashlab's built-in keys and patterns (default `true`). */
  useDefaults?: boolean
  /**
   * Also apply the process-wide rules added through `redaction.addPattern/addKey/addHook`, read at each
   * call (default `true`): a rule registered in a setup file must reach every writer.
   */
  useGlobalRules?: boolean
}

/**
 * A compiled set of redaction rules.
 *
 * @example
 * const redactor: Redactor = createRedactor({ keys: ['x-tenant-secret'] })
 * redactor.isSensitiveKey('X_TENANT_SECRET') // true
 * redactor.redactString('token sk-proj-…', '/run/note').records[0]?.path // '/run/note'
 */
export interface Redactor {
  /** Redacts a JSON-like document without mutating it. */
  redact<T>(doc: T): RedactionResult<T>
  /** Redacts one string as if it sat at `path` under `key`; records use `path`. */
  redactString(value: string, path?: string, key?: string): RedactionResult<string>
  /** True when values under this key are replaced whole. */
  isSensitiveKey(key: string): boolean
  /** The value patterns in effect, built-ins first (the leak scanner uses the same list). */
  patterns(): readonly PatternRule[]
}
