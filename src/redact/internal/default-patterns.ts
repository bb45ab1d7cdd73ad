import type { PatternRule } from '../types.ts'
import { AI_PATTERNS } from './patterns-ai.ts'
import { ASSIGNMENT_PATTERNS } from './patterns-assignments.ts'
import { CLOUD_PATTERNS } from './patterns-cloud.ts'
import { GENERIC_PATTERNS } from './patterns-generic.ts'
import { SAAS_PATTERNS } from './patterns-saas.ts'
import { SERVICE_PATTERNS } from './patterns-services.ts'

/**
 * crashlab's built-in value patterns, in the order they run: vendor formats (precise, named) before the
 * generic ones (auth schemes, URLs), and those before assignments (`DB_PASSWORD=…`), so a record names
 * the most specific rule. Every pattern carries a validator that turns away look-alikes (placeholders,
 * documented example keys, words); docs/redaction.md lists them.
 *
 * @example
 * import { DEFAULT_PATTERNS } from 'crashlab'
 * DEFAULT_PATTERNS.map((p) => p.id) // ['anthropic-key', 'openrouter-key', …, 'cli-password']
 */
export const DEFAULT_PATTERNS: readonly PatternRule[] = [
  ...AI_PATTERNS,
  ...SERVICE_PATTERNS,
  ...CLOUD_PATTERNS,
  ...SAAS_PATTERNS,
  ...GENERIC_PATTERNS,
  ...ASSIGNMENT_PATTERNS,
]
