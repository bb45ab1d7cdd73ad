import { CrashlabError } from '../../errors.ts'
import { canonicalStringify } from '../canonical-json.ts'
import type { AgentCase } from './schema.ts'

/**
 * Writes a case in the canonical form of the format: keys sorted by code point at every level, compact
 * separators, non-ASCII as is, no NaN or Infinity, exactly one trailing newline. A file in this form
 * re-serializes byte-identically, which is what makes an `.agentcase` reviewable in a diff.
 *
 * Numbers are written as JavaScript writes them: `1.0` becomes `1`, and Python's `1e-07` becomes
 * `1e-7`; a case written by another implementation with such numbers loads fine but is not
 * byte-identical after a round trip (see docs/agentcase.md).
 *
 * It does not validate (use `writeAgentCase` for that); it refuses values JSON cannot carry.
 *
 * @example
 * const text = serializeAgentCase(parseAgentCase(bytes)) // === bytes for a canonical file
 */
export function serializeAgentCase(c: AgentCase): string {
  try {
    return `${canonicalStringify(c)}\n`
  } catch (cause) {
    // canonicalStringify names the path of the NaN, Infinity, bigint or cycle it refused.
    throw new CrashlabError(
      'E_AGENTCASE_INVALID',
      `this AgentCase cannot be serialized: ${(cause as Error).message}. Payloads must be plain JSON; replace the value before writing.`,
      { cause },
    )
  }
}
