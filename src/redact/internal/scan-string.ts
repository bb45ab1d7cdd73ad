import { keyBefore } from './allow-list.ts'
import { findHighEntropy } from './entropy.ts'
import { maskExcerpt } from './mask.ts'
import { RuleFailure } from './rule-set.ts'
import type { ScanContext } from './scan-context.ts'

/** A finding inside one string, by offset; the callers turn offsets into lines or pointers. */
export interface StringFinding {
  start: number
  rule: string
  excerpt: string
}

export interface ScanStringOptions {
  /** The string sits at an allow-listed location: skip the entropy heuristic. */
  allowed: boolean
  /** Free text (no JSON structure around it): read the key in front of a token as its location. */
  text: boolean
}

/**
 * Scans one string with the redactor's patterns (including sensitive keys inside JSON text) and the
 * entropy heuristic. Tokens a pattern already matched are not reported twice.
 *
 * @example
 * scanString('auth: sk-proj-abcdefghijklmnop1234', ctx, { allowed: false, text: true })[0]?.rule // 'openai-key'
 */
export function scanString(value: string, ctx: ScanContext, options: ScanStringOptions): StringFinding[] {
  const out: StringFinding[] = []
  const taken: Array<[number, number]> = []
  try {
    for (const m of ctx.rules.find(value)) {
      out.push({ start: m.start, rule: m.rule.id, excerpt: maskExcerpt(value.slice(m.start, m.end)) })
      taken.push([m.start, m.end])
    }
  } catch (err) {
    // A user rule that throws must not hide the rest of the report; say which rule, not the text.
    out.push({
      start: 0,
      rule: `rule-failed:${err instanceof RuleFailure ? err.ruleId : 'unknown'}`,
      excerpt: '',
    })
  }
  if (ctx.entropy === false || options.allowed) return out
  for (const t of findHighEntropy(value, ctx.entropy)) {
    if (taken.some(([s, e]) => t.start < e && t.end > s)) continue
    if (options.text) {
      const key = keyBefore(value, t.start)
      if (key !== undefined && ctx.allowed([key])) continue
    }
    out.push({ start: t.start, rule: 'high-entropy', excerpt: maskExcerpt(t.token) })
  }
  return out
}
