import { CrashlabError } from '../../../errors.ts'
import type { AgentCase } from '../schema.ts'

/**
 * The two cross-field rules of the format outside the events. Each has its own code because each means
 * something different to a user: a redaction claim that does not match its records cannot be trusted
 * for sharing, and a mock replay that claims approved live side effects contradicts itself.
 */

/**
 * Throws E_AGENTCASE_REDACTION or E_AGENTCASE_REPLAY when the case breaks one of the rules.
 *
 * @example
 * checkAgentCaseRules(agentCase, 'run.agentcase')
 */
export function checkAgentCaseRules(c: AgentCase, source: string): void {
  const { status, records } = c.redaction
  if (status === 'none' && records.length > 0) {
    redactionError(
      source,
      `redaction.status is "none" but ${records.length} redaction record(s) are listed`,
      'set the status to "redacted" (or "partial")',
    )
  }
  if (status === 'redacted' && records.length === 0) {
    redactionError(
      source,
      'redaction.status is "redacted" but no redaction record is listed',
      'list what was redacted, or set the status to "none" or "unknown"',
    )
  }
  if (c.replay?.mode === 'mock' && c.replay.live_side_effects_approved) {
    const path = '$.replay.live_side_effects_approved'
    const message = 'a mock replay cannot have live side effects approved'
    throw new CrashlabError(
      'E_AGENTCASE_REPLAY',
      `${source}: ${message}. A mock replay never runs tools; set live_side_effects_approved to false, or the mode to "live".`,
      { subject: source, issues: [{ code: 'E_AGENTCASE_REPLAY', path, message }] },
    )
  }
}

function redactionError(source: string, message: string, next: string): never {
  throw new CrashlabError('E_AGENTCASE_REDACTION', `${source}: ${message}; ${next}.`, {
    subject: source,
    issues: [{ code: 'E_AGENTCASE_REDACTION', path: '$.redaction.status', message }],
  })
}
