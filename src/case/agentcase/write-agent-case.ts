import { CrashlabError, formatIssues } from '../../errors.ts'
import type { Redactor } from '../../redact/index.ts'
import { writeFileAtomic } from '../atomic-write.ts'
import { redactAgentCase } from './redact-case.ts'
import { AGENTCASE_MAX_BYTES, type AgentCase } from './schema.ts'
import { serializeAgentCase } from './serialize-agent-case.ts'
import { validateAgentCase } from './validate-agent-case.ts'
import { validateAgentCasePayloads } from './validate-agent-case-payloads.ts'

/**
 * Options of `writeAgentCase`.
 *
 * @example
 * writeAgentCase(path, c, { redactor: createRedactor({ keys: ['x-tenant'] }), strictPayloads: true })
 */
export interface WriteAgentCaseOptions {
  /** The rules to apply; the defaults plus the process-wide `redaction.*` rules when omitted. */
  redactor?: Redactor
  /** Also enforce the payload contracts (E_AGENTCASE_PAYLOAD); crashlab's own exports always meet them. */
  strictPayloads?: boolean
  /** The size bound of the written file; the format's 16 MiB by default. */
  maxBytes?: number
}

/**
 * Writes a case to `path`: validates it (a writer never writes an invalid case), redacts its free JSON
 * and records what was replaced in `redaction`, validates the result again, serializes it canonically
 * and writes it atomically (a reader never sees half a file; on failure nothing is left behind).
 * Returns the case as written.
 *
 * @example
 * const written = writeAgentCase('failures/refund.agentcase', toAgentCase(run), { strictPayloads: true })
 * written.redaction.status // 'redacted' when a secret was found
 */
export function writeAgentCase(path: string, c: AgentCase, options: WriteAgentCaseOptions = {}): AgentCase {
  const source = `the case to write to ${path}`
  validateAgentCase(c, { source })
  if (options.strictPayloads) {
    const issues = validateAgentCasePayloads(c)
    if (issues.length > 0) {
      throw new CrashlabError(
        'E_AGENTCASE_PAYLOAD',
        `${source} breaks the AgentCase payload contracts (${issues.length}):\n${formatIssues(issues)}\nFix the payloads, or write without strictPayloads.`,
        { subject: path, issues },
      )
    }
  }
  // Validated twice: the redactor replaces values inside free JSON only, but the case it returns is
  // what reaches disk, so that is what must be proven valid.
  const redacted = validateAgentCase(redactAgentCase(c, options.redactor), { source })
  const text = serializeAgentCase(redacted)
  const maxBytes = options.maxBytes ?? AGENTCASE_MAX_BYTES
  const size = Buffer.byteLength(text)
  if (size > maxBytes) {
    throw new CrashlabError(
      'E_AGENTCASE_TOO_LARGE',
      `${source} would be ${size} bytes, over the AgentCase size bound of ${maxBytes} bytes, which every reader refuses. Nothing was written; drop large payloads (wire bodies, tool results) before exporting.`,
      { subject: path },
    )
  }
  writeFileAtomic(path, text)
  return redacted
}
