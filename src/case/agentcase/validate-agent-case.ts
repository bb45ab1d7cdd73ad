import { CrashlabError, formatIssues } from '../../errors.ts'
import { checkAgentCaseEvents } from './internal/check-events.ts'
import { checkAgentCaseHeader } from './internal/check-header.ts'
import { checkAgentCaseRules } from './internal/check-rules.ts'
import { zodIssuesToValidationIssues } from './internal/issue-paths.ts'
import { type AgentCase, AgentCaseSchema } from './schema.ts'

/**
 * Options of `validateAgentCase`.
 *
 * @example
 * validateAgentCase(value, { source: 'upload.agentcase' })
 */
export interface ValidateAgentCaseOptions {
  /** Names the document in messages (a file name); `AgentCase input` when omitted. */
  source?: string
}

/**
 * Validates an already parsed value as an AgentCase 0.1, following the reader order after JSON: root
 * object, format name, version, strict schema, redaction and replay rules, then the event checks. Each
 * failure is a CrashlabError with its own `E_AGENTCASE_*` code; schema failures list every issue with a
 * `$`-style path. Writers call it too, so that no invalid case is ever written.
 *
 * @example
 * const c = validateAgentCase(JSON.parse(text), { source: 'failure.agentcase' })
 * console.log(c.events.length)
 */
export function validateAgentCase(value: unknown, options: ValidateAgentCaseOptions = {}): AgentCase {
  const source = options.source ?? 'AgentCase input'
  checkAgentCaseHeader(value, source)
  const result = AgentCaseSchema.safeParse(value)
  if (!result.success) {
    const issues = zodIssuesToValidationIssues(result.error.issues)
    throw new CrashlabError(
      'E_AGENTCASE_INVALID',
      `${source} does not match the AgentCase 0.1 schema (${issues.length} issue${issues.length === 1 ? '' : 's'}):\n${formatIssues(issues)}\nFix these fields in the writer that produced the file.`,
      { subject: source, issues, cause: result.error },
    )
  }
  const c = result.data
  checkAgentCaseRules(c, source)
  checkAgentCaseEvents(c.events, source)
  return c
}
