import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  createRedactor,
  type HookRule,
  type MatchingOptions,
  type PatternRule,
  type RedactionConfig,
  type RedactionHook,
  type Redactor,
  type RequestNormalizer,
} from '../src/internal.ts'

/**
 * The plugin's `redaction` option: data only, since `project.provide()` serializes what it hands to the
 * workers. Patterns may be RegExps (the plugin sends their source and flags); hooks, which are
 * functions, are named by module: each module's default export is a hook map (`{ id: fn }`) or a list of
 * `{ id, fn }`.
 *
 * @example
 * const redaction: RedactionOptions = {
 *   patterns: [{ id: 'acme-ticket', pattern: /ACME-\d{6}/ }],
 *   keys: ['x-tenant-secret'],
 *   hooks: './test/redaction-hooks.ts',
 * }
 */
export interface RedactionOptions {
  /** Value patterns added to the defaults; each match is written as `[REDACTED:<id>]` (or `marker`). */
  patterns?: Array<Omit<PatternRule, 'pattern'> & { pattern: RegExp | string }>
  /** Sensitive keys whose whole value is replaced. */
  keys?: string[]
  /** Module paths (against the project root) whose default export is `Record<id, hook>` or `HookRule[]`. */
  hooks?: string | string[]
}

/**
 * The plugin's `matching` option: params left out of the request hash, and normalizer modules (each
 * default-exports a `RequestNormalizer` or a list of them) run on every model request, at record and at
 * replay alike.
 *
 * @example
 * const matching: MatchingPluginOptions = { ignoreParams: ['x_trace_id'], normalize: './test/strip-date.ts' }
 */
export interface MatchingPluginOptions {
  /** More request body fields (wire names) that never take part in the request hash. */
  ignoreParams?: string[]
  /** Module paths (against the project root) whose default export is a normalizer or a list of them. */
  normalize?: string | string[]
}

/** A pattern as it crosses `project.provide()`. */
export interface ProvidedPattern {
  id: string
  source: string
  flags: string
  marker?: string
  hint?: string | string[]
}

/**
 * The serializable form of the `redaction` and `matching` options, as the workers receive it.
 *
 * @example
 * const provided: ProvidedSessionOptions = { redaction: { patterns: [{ id: 'acme', source: 'ACME-\\d{6}', flags: '' }] } }
 */
export interface ProvidedSessionOptions {
  redaction?: { patterns: ProvidedPattern[]; keys: string[]; hooks: string[] }
  matching?: { ignoreParams: string[]; normalize: string[] }
}

/**
 * Turns the plugin's `redaction` and `matching` options into data the workers can receive: RegExps
 * become source and flags, module paths become absolute file URLs. A function where a module path is
 * expected is an error that says how to pass it.
 *
 * @example
 * const provided = serializeSessionOptions({ redaction, matching }, project.config.root)
 */
export function serializeSessionOptions(
  options: { redaction?: RedactionOptions; matching?: MatchingPluginOptions },
  root: string,
): ProvidedSessionOptions {
  const out: ProvidedSessionOptions = {}
  if (options.redaction) {
    const { patterns = [], keys = [], hooks } = options.redaction
    out.redaction = {
      patterns: patterns.map((p) => serializePattern(p)),
      keys: [...keys],
      hooks: modules(hooks, 'redaction.hooks', root),
    }
  }
  if (options.matching) {
    out.matching = {
      ignoreParams: [...(options.matching.ignoreParams ?? [])],
      normalize: modules(options.matching.normalize, 'matching.normalize', root),
    }
  }
  return out
}

/**
 * In a worker: the redactor and matching rules every test's Session uses, built from what the plugin
 * provided. Hook and normalizer modules are imported here (through Vitest, so TypeScript works).
 *
 * @example
 * const { redactor, matching } = await loadSessionOptions(inject('crashlab'))
 */
export async function loadSessionOptions(
  provided: ProvidedSessionOptions,
  fileRedaction?: RedactionConfig,
): Promise<{ redactor: Redactor | undefined; matching: MatchingOptions | undefined }> {
  let redactor: Redactor | undefined
  if (provided.redaction || fileRedaction) {
    // The config file's rules first, then the plugin's: every rule of both applies.
    const hooks: HookRule[] = toHookList(fileRedaction?.hooks)
    const patterns: PatternRule[] = [...(fileRedaction?.patterns ?? [])]
    const keys: string[] = [...(fileRedaction?.keys ?? [])]
    if (provided.redaction) {
      for (const url of provided.redaction.hooks) hooks.push(...toHookRules(await defaultExport(url), url))
      for (const { source, flags, ...rest } of provided.redaction.patterns) {
        patterns.push({ ...rest, pattern: new RegExp(source, flags) })
      }
      keys.push(...provided.redaction.keys)
    }
    redactor = createRedactor({ patterns, keys, hooks })
  }
  let matching: MatchingOptions | undefined
  if (provided.matching) {
    const normalize: RequestNormalizer[] = []
    for (const url of provided.matching.normalize) {
      const value = await defaultExport(url)
      const list = Array.isArray(value) ? value : [value]
      for (const fn of list) {
        if (typeof fn !== 'function') throw moduleError(url, 'a normalizer function or a list of them')
        normalize.push(fn as RequestNormalizer)
      }
    }
    matching = { ignoreParams: provided.matching.ignoreParams, normalize }
  }
  return { redactor, matching }
}

function serializePattern(
  rule: Omit<PatternRule, 'pattern'> & { pattern: RegExp | string },
): ProvidedPattern {
  if (typeof rule?.id !== 'string' || rule.id === '') {
    throw new TypeError('[crashlab] crashlab({ redaction: { patterns } }): every pattern needs an `id`')
  }
  const regexp = typeof rule.pattern === 'string' ? new RegExp(rule.pattern) : rule.pattern
  if (!(regexp instanceof RegExp)) {
    throw new TypeError(`[crashlab] crashlab({ redaction }): pattern "${rule.id}" needs a RegExp or a string`)
  }
  const out: ProvidedPattern = { id: rule.id, source: regexp.source, flags: regexp.flags }
  if (rule.marker !== undefined) out.marker = rule.marker
  if (rule.hint !== undefined) out.hint = typeof rule.hint === 'string' ? rule.hint : [...rule.hint]
  return out
}

function modules(value: string | string[] | undefined, option: string, root: string): string[] {
  if (value === undefined) return []
  return [value].flat().map((path) => {
    if (typeof path !== 'string') {
      throw new TypeError(
        `[crashlab] crashlab({ ${option} }) takes module paths, not functions: the plugin's options are ` +
          "serialized to reach Vitest's workers. Put the function in a module's default export and give its path.",
      )
    }
    return pathToFileURL(isAbsolute(path) ? path : resolve(root, path)).href
  })
}

async function defaultExport(url: string): Promise<unknown> {
  const module = (await import(/* @vite-ignore */ url)) as { default?: unknown }
  return module.default
}

function toHookRules(value: unknown, url: string): HookRule[] {
  if (Array.isArray(value)) {
    return value.map((rule) => {
      if (typeof rule?.id !== 'string' || typeof rule?.fn !== 'function') throw moduleError(url, 'hooks')
      return rule as HookRule
    })
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).map(([id, fn]) => {
      if (typeof fn !== 'function') throw moduleError(url, 'hooks')
      return { id, fn: fn as RedactionHook }
    })
  }
  throw moduleError(url, 'hooks')
}

function toHookList(hooks: RedactionConfig['hooks']): HookRule[] {
  if (!hooks) return []
  return Array.isArray(hooks) ? [...hooks] : Object.entries(hooks).map(([id, fn]) => ({ id, fn }))
}

function moduleError(url: string, what: string): TypeError {
  const expected = what === 'hooks' ? 'a hook map ({ id: fn }) or a list of { id, fn }' : what
  return new TypeError(`[crashlab] the default export of ${url} must be ${expected}`)
}
