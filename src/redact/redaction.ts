import { CrashlabError } from '../errors.ts'
import { globalRules } from './internal/global-rules.ts'
import type { RedactionHook } from './types.ts'

function invalid(what: string, id: unknown): never {
  throw new CrashlabError('E_REDACTION_RULE', `redaction.${what}: ${JSON.stringify(id)} is not valid`, {
    subject: String(id),
  })
}

/**
 * The process-wide user rules, added to crashlab's defaults for every write in this process (cassettes,
 * AgentCase exports, reports). Register them once, in a Vitest setup file. Adding a rule with an id
 * that exists replaces it, so a setup file that runs again does not stack duplicates.
 *
 * @example
 * import { redaction } from 'crashlab'
 * redaction.addPattern('acme-ticket', /\bACME-\d{6}\b/)
 * redaction.addKey('x-tenant-secret')
 * redaction.addHook('emails', (value) => value.replace(/[\w.+-]+@[\w-]+\.\w+/g, '[REDACTED:email]'))
 */
export const redaction = {
  /** A value pattern; every match in every string becomes `marker` (default `[REDACTED:<id>]`). */
  addPattern(id: string, pattern: RegExp, marker?: string): void {
    if (typeof id !== 'string' || !id) invalid('addPattern', id)
    if (!(pattern instanceof RegExp)) invalid('addPattern', id)
    const g = globalRules()
    g.patterns.set(id, marker === undefined ? { id, pattern } : { id, pattern, marker })
    g.version++
  },
  /** A sensitive key; compared case-folded with only letters and digits kept. */
  addKey(key: string): void {
    if (typeof key !== 'string' || !/[a-z0-9]/i.test(key)) invalid('addKey', key)
    const g = globalRules()
    g.keys.add(key)
    g.version++
  },
  /** A hook over every string; return a replacement or `undefined`. A hook that throws drops the value. */
  addHook(id: string, fn: RedactionHook): void {
    if (typeof id !== 'string' || !id || typeof fn !== 'function') invalid('addHook', id)
    const g = globalRules()
    g.hooks.set(id, fn)
    g.version++
  },
  /** Removes every process-wide rule (the defaults stay). */
  reset(): void {
    const g = globalRules()
    g.patterns.clear()
    g.keys.clear()
    g.hooks.clear()
    g.version++
  },
}
