import type { PatternRule } from '../types.ts'
import { AI_PATTERNS } from './patterns-ai.ts'
import { GENERIC_PATTERNS } from './patterns-generic.ts'
import { SERVICE_PATTERNS } from './patterns-services.ts'

/**
 * crashlab's built-in value patterns, in the order they run: vendor formats (precise, named) before the
 * generic ones (auth schemes, URLs, assignments), so a record names the most specific rule.
 *
 * @example
 * import { DEFAULT_PATTERNS } from 'crashlab'
 * DEFAULT_PATTERNS.map((p) => p.id) // ['anthropic-key', 'openai-key', …, 'secret-assignment']
 */
export const DEFAULT_PATTERNS: readonly PatternRule[] = [
  ...AI_PATTERNS,
  ...SERVICE_PATTERNS,
  ...GENERIC_PATTERNS,
]
