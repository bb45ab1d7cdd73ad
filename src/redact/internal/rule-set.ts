import { CrashlabError } from '../../errors.ts'
import type { PatternRule } from '../types.ts'
import { decodedViews } from './decoded-views.ts'
import { hintTrie, presentHints } from './hint-trie.ts'

/** One match of one rule: the range to replace (the `secret` group, or the whole match). */
export interface RuleMatch {
  rule: CompiledRule
  start: number
  end: number
  /** Where the whole match begins, its context (`pre`: a name, a scheme) included; `start` if none. */
  from?: number
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
  /**
   * Every match in `text`. Matches that overlap are merged into one (their union), named by the one
   * that starts first (then by rule order), so that neither the ranges nor the names depend on which
   * rule happened to match first, or in which view.
   */
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
  const rank = new Map(rules.map((r, i) => [r, i]))
  const merge = (out: RuleMatch[], m: RuleMatch) => mergeMatch(out, m, rank)
  const hintSet = new Set(rules.flatMap((r) => r.hints))
  // One pass over the text tells which hints occur, hence which rules can match at all; most strings
  // of a cassette (message text, ids, numbers as text) stop here.
  const trie = hintTrie([...hintSet])
  // Which rules each hint enables, and the rules with no hint (they run on every string): a lookup per
  // hint found instead of a test per rule, which matters with a hundred rules and strings by the thousand.
  const byHint = new Map<string, number[]>()
  const always: number[] = []
  rules.forEach((rule, i) => {
    if (rule.hints.length === 0) always.push(i)
    for (const h of new Set(rule.hints)) {
      const list = byHint.get(h)
      if (list) list.push(i)
      else byHint.set(h, [i])
    }
  })

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
        const from = view.starts[m.from ?? m.start]!
        if (start < end) merge(out, { rule: m.rule, start, end, from })
      }
    }
    return out
  }

  function scanRaw(text: string): RuleMatch[] {
    const present = trie ? presentHints(trie, hintSet, text) : NONE
    const out: RuleMatch[] = []
    let order = always
    if (present.size > 0) {
      const picked = new Set(always)
      for (const h of present) for (const i of byHint.get(h) ?? []) picked.add(i)
      // Rule order decides which rule names an overlapping match: keep it.
      order = [...picked].sort((a, b) => a - b)
    }
    for (const i of order) {
      const rule = rules[i]!
      try {
        collect(rule, text, out, merge)
      } catch (err) {
        throw new RuleFailure(rule.id, err)
      }
    }
    return out
  }

  return { rules, find }
}

/**
 * Adds `m` to `out`: as it is when it overlaps nothing, else as the union with every match it overlaps,
 * named by the one that starts first, and among those by the rule that comes first in rule order
 * (`rank`). So a vendor rule that matches only in a decoded view still names a secret that a generic
 * rule found in the raw text, and a `sk-` that a long token happens to hold does not name the token.
 */
function mergeMatch(out: RuleMatch[], m: RuleMatch, rank: ReadonlyMap<CompiledRule, number>): void {
  // A context that begins inside a secret already found is part of that secret, not a name: the `pwd=`
  // that a random token happens to hold names nothing. Unless the secret it names starts past that
  // one's end: a value that ran on into the context (`#key=)sshpass -p <password>`) does not hide
  // the secret after it.
  const from = m.from ?? m.start
  if (from < m.start && out.some((o) => o.start <= from && from < o.end && m.start <= o.end)) return
  let start = m.start
  let end = m.end
  let rule = m.rule
  let ruleStart = m.start
  let keep: RuleMatch | undefined
  for (let i = out.length - 1; i >= 0; i--) {
    const o = out[i]!
    if (o.end <= start || o.start >= end) continue
    if (o.start < ruleStart || (o.start === ruleStart && (rank.get(o.rule) ?? 0) <= (rank.get(rule) ?? 0))) {
      rule = o.rule
      ruleStart = o.start
    }
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
  keep.rule = rule
}

const CACHE_MAX_ENTRIES = 4096
/** Look-alikes per rule and string after which the search resumes past a rejected match, not inside it. */
const MAX_REJECTED = 1000
/**
 * Values per rule and string looked into for the name of a next secret; each look can read the rest of
 * the string (a value runs to the next space), so a long run of names glued into one value must stop.
 */
const MAX_LOOKED_INTO = 64
const CACHE_MAX_TEXT = 16 * 1024

/**
 * A range to leave alone: empty, or inside a marker already written (a second pass over redacted text
 * must change nothing, whatever a user pattern matches).
 */
function skip(text: string, start: number, end: number): boolean {
  if (start === end) return true
  const open = text.lastIndexOf(MARKER_PREFIX, start)
  if (open === -1) return false
  const close = text.indexOf(']', open)
  return close !== -1 && close >= start
}

function collect(
  rule: CompiledRule,
  text: string,
  out: RuleMatch[],
  merge: (out: RuleMatch[], m: RuleMatch) => void,
): void {
  if (rule.scan) {
    for (const [start, end] of rule.scan(text)) if (!skip(text, start, end)) merge(out, { rule, start, end })
    return
  }
  const re = rule.regex
  if (!re) return
  re.lastIndex = 0
  let rejected = 0
  let lookedInto = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++ // a user pattern that can match empty would loop forever
      continue
    }
    const range = m.indices?.groups?.secret ?? m.indices?.[0]
    if (!range) continue
    const [start, end] = range
    if (rule.validate && !rule.validate(text.slice(start, end))) {
      // A look-alike: look again from just after where it began, so a secret inside it (a URL with an
      // `access_token` as an assigned value) is not skipped with it.
      // Bounded: a long run of look-alikes must not make the search quadratic.
      if (++rejected <= MAX_REJECTED) re.lastIndex = m.index + 1
      continue
    }
    // Overlapping matches of two rules are merged (their union), not the later one dropped: a view of
    // the text merges what it finds too, and the result must not depend on which of them saw what.
    if (!skip(text, start, end)) merge(out, { rule, start, end, from: m.index })
    // A value can run on into the name of the next secret (`api_key=)aws_session_token = …`): when it
    // holds one of the rule's hints, look for that one from where the value begins, not past its end.
    if (m.index < start && holdsHint(rule, text.slice(start, end)) && ++lookedInto <= MAX_LOOKED_INTO) {
      re.lastIndex = start
    }
  }
}

/** Whether `value` holds one of the rule's hints (or the rule has none). */
function holdsHint(rule: CompiledRule, value: string): boolean {
  if (rule.hints.length === 0) return true
  const lower = value.toLowerCase()
  return rule.hints.some((h) => lower.includes(h))
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
