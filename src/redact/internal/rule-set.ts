import { CrashlabError } from '../../errors.ts'
import type { PatternRule } from '../types.ts'
import { decodedViews } from './decoded-views.ts'
import { hintTrie, presentHints } from './hint-trie.ts'

/** One match of one rule: the range to replace (the `secret` group, or the whole match). */
export interface RuleMatch {
  rule: CompiledRule
  start: number
  end: number
}

export interface CompiledRule {
  id: string
  marker: string
  /** The pattern; absent for rules that find their ranges with code (`scan`). */
  regex?: RegExp
  /** Lower-cased hints; empty means the rule runs on every string. */
  hints: string[]
  /** For rules that need more than a regex (a key lookup): the `[start, end)` ranges to replace. */
  scan?: (text: string) => Array<[number, number]>
  /** Rejects a look-alike: gets the text of the range that would be replaced. */
  validate?: (secret: string) => boolean
}

/** Thrown by `find` when one rule fails, so that the caller can name the rule (and not the text). */
export class RuleFailure extends Error {
  override readonly name = 'RuleFailure'
  readonly ruleId: string
  constructor(ruleId: string, cause: unknown) {
    super(`redaction rule "${ruleId}" failed`, { cause })
    this.ruleId = ruleId
  }
}

/** Markers are never secrets: a second pass over redacted text must find nothing. */
export const MARKER_PREFIX = '[REDACTED:'

/**
 * The compiled patterns and the cheap pre-check in front of them, shared by the redactor and the
 * scanner so that both always agree on what a secret is.
 */
export interface RuleSet {
  rules: readonly CompiledRule[]
  /** Every match in `text`, in rule order, then by position; overlapping later matches are dropped. */
  find(text: string): RuleMatch[]
}

const NONE: ReadonlySet<string> = new Set()

/**
 * Compiles patterns: each regex is cloned with `g` (to walk all matches) and `d` (for the index of the
 * `secret` group), and without `y`, which would make a rule silently miss secrets not at the start.
 *
 * @example
 * const set = compileRules([{ id: 'acme', pattern: /ACME-\d{6}/ }])
 * set.find('id ACME-123456').map((m) => m.rule.id) // ['acme']
 */
export function compileRules(patterns: readonly PatternRule[], extra: readonly CompiledRule[] = []): RuleSet {
  const compiled: CompiledRule[] = patterns.map((p) => {
    if (!p || typeof p.id !== 'string' || !p.id || !(p.pattern instanceof RegExp)) {
      throw new CrashlabError(
        'E_REDACTION_RULE',
        `redaction pattern ${JSON.stringify(p?.id ?? null)} needs an id and a RegExp; check the \`redaction.patterns\` of your crashlab config`,
        { subject: String(p?.id ?? '') },
      )
    }
    const flags = [...new Set(`${p.pattern.flags.replace('y', '')}gd`)].join('')
    const hints =
      p.hint === undefined
        ? []
        : (typeof p.hint === 'string' ? [p.hint] : [...p.hint]).map((h) => h.toLowerCase())
    return {
      id: p.id,
      marker: p.marker ?? `[REDACTED:${p.id}]`,
      regex: new RegExp(p.pattern.source, flags),
      hints,
      ...(p.validate ? { validate: p.validate } : {}),
    }
  })
  // Key-driven rules first: in JSON text, a value under `api_key` is reported as `sensitive-key`, as the
  // document walk reports the same value when the JSON is parsed.
  const rules = [...extra, ...compiled]
  const hintSet = new Set(rules.flatMap((r) => r.hints))
  // One pass over the text tells which hints occur, hence which rules can match at all; most strings
  // of a cassette (message text, ids, numbers as text) stop here.
  const trie = hintTrie([...hintSet])

  // An agent resends its whole conversation on every call, so the same strings are scanned again and
  // again: remember what each (not too long) string matched. The rules are fixed for this set, so the
  // answer for a string never changes; the cache is dropped whole when it grows past its bound.
  const cache = new Map<string, RuleMatch[]>()
  function find(text: string): RuleMatch[] {
    if (text.length > CACHE_MAX_TEXT) return scan(text)
    const hit = cache.get(text)
    if (hit) return hit
    const found = scan(text)
    if (cache.size >= CACHE_MAX_ENTRIES) cache.clear()
    cache.set(text, found)
    return found
  }

  /**
   * The raw text first, then each decoded view of it (JSON escapes and percent-encoding undone), each
   * view's matches mapped back onto the raw text. A view match that overlaps a match already found is
   * merged into it (the union is replaced), so that no part of a secret seen in any form survives.
   */
  function scan(text: string): RuleMatch[] {
    const out = scanRaw(text)
    const views = decodedViews(text)
    if (views.length === 0) return out
    for (const view of views) {
      for (const m of scanRaw(view.text)) {
        const start = view.starts[m.start]!
        const end = view.starts[m.end]!
        if (start < end) mergeMatch(out, { rule: m.rule, start, end })
      }
    }
    return out
  }

  function scanRaw(text: string): RuleMatch[] {
    const present = trie ? presentHints(trie, hintSet, text) : NONE
    const out: RuleMatch[] = []
    for (const rule of rules) {
      if (rule.hints.length && !rule.hints.some((h) => present.has(h))) continue
      try {
        collect(rule, text, out)
      } catch (err) {
        throw new RuleFailure(rule.id, err)
      }
    }
    return out
  }

  return { rules, find }
}

/**
 * Adds `m` to `out`: as it is when it overlaps nothing, else as the union with every match it overlaps
 * (the earliest of those keeps its rule and marker).
 */
function mergeMatch(out: RuleMatch[], m: RuleMatch): void {
  let start = m.start
  let end = m.end
  let keep: RuleMatch | undefined
  for (let i = out.length - 1; i >= 0; i--) {
    const o = out[i]!
    if (o.end <= start || o.start >= end) continue
    if (o.start <= start && o.end >= end && !keep) return // already covered
    start = Math.min(start, o.start)
    end = Math.max(end, o.end)
    if (keep) out.splice(out.indexOf(keep), 1)
    keep = o
  }
  if (!keep) {
    out.push(m)
    return
  }
  keep.start = start
  keep.end = end
}

const CACHE_MAX_ENTRIES = 4096
const CACHE_MAX_TEXT = 16 * 1024

/**
 * A range to leave alone: empty, overlapping an earlier match, or inside a marker already written (a
 * second pass over redacted text must change nothing, whatever a user pattern matches).
 */
function skip(text: string, start: number, end: number, out: readonly RuleMatch[]): boolean {
  if (start === end || out.some((o) => start < o.end && end > o.start)) return true
  const open = text.lastIndexOf(MARKER_PREFIX, start)
  if (open === -1) return false
  const close = text.indexOf(']', open)
  return close !== -1 && close >= start
}

function collect(rule: CompiledRule, text: string, out: RuleMatch[]): void {
  if (rule.scan) {
    for (const [start, end] of rule.scan(text))
      if (!skip(text, start, end, out)) out.push({ rule, start, end })
    return
  }
  const re = rule.regex
  if (!re) return
  re.lastIndex = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++ // a user pattern that can match empty would loop forever
      continue
    }
    const range = m.indices?.groups?.secret ?? m.indices?.[0]
    if (!range) continue
    const [start, end] = range
    if (rule.validate && !rule.validate(text.slice(start, end))) continue
    if (!skip(text, start, end, out)) out.push({ rule, start, end })
  }
}

/**
 * Replaces the matched ranges by their markers.
 *
 * @example
 * applyMatches('a SECRET b', [{ rule: { marker: '[X]' } as CompiledRule, start: 2, end: 8 }]) // 'a [X] b'
 */
export function applyMatches(text: string, matches: readonly RuleMatch[]): string {
  if (matches.length === 0) return text
  const sorted = [...matches].sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (const m of sorted) {
    out += text.slice(at, m.start) + m.rule.marker
    at = m.end
  }
  return out + text.slice(at)
}
