import { CrashlabError, formatIssues } from '../../errors.ts'
import { TOO_MANY_ISSUES } from '../internal/bounded-safe-parse.ts'
import { piecewiseSafeParse } from '../internal/piecewise-parse.ts'
import { checkAgentCaseBounds } from './internal/check-bounds.ts'
import { checkAgentCaseEvents } from './internal/check-events.ts'
import { checkAgentCaseHeader } from './internal/check-header.ts'
import { checkAgentCaseRules } from './internal/check-rules.ts'
import { zodIssuesToValidationIssues } from './internal/issue-paths.ts'
import { type AgentCase, AgentCaseEventSchema, AgentCaseSchema } from './schema.ts'

/**
 * A case with at least this many events is validated one event at a time, stopping after
 * `MAX_REPORTED_ISSUES` issues: 100,000 `{}` events would otherwise be 900,000 issues to build.
 */
const EVENT_BY_EVENT = 1000
const MAX_REPORTED_ISSUES = 1000

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
 * Validates an already parsed value as an AgentCase 0.1, following the reader order after JSON: shape
 * bounds (nesting, entries), root object, format name, version, strict schema, redaction and replay rules, then the event checks. Each
 * failure is a CrashlabError with its own `E_AGENTCASE_*` code; schema failures list every issue with a
 * `$`-style path. Writers call it too, so that no invalid case is ever written.
 *
 * @example
 * const c = validateAgentCase(JSON.parse(text), { source: 'failure.agentcase' })
 * console.log(c.events.length)
 */
export function validateAgentCase(value: unknown, options: ValidateAgentCaseOptions = {}): AgentCase {
  const source = options.source ?? 'AgentCase input'
  checkAgentCaseBounds(value, source)
  checkAgentCaseHeader(value, source)
  const result = piecewiseSafeParse(
    AgentCaseSchema,
    value,
    { path: ['events'], element: AgentCaseEventSchema, minLength: EVENT_BY_EVENT },
    { maxIssues: MAX_REPORTED_ISSUES },
  )
  if (result === TOO_MANY_ISSUES) {
    throw new CrashlabError(
      'E_AGENTCASE_INVALID',
      `${source} does not match the AgentCase 0.1 schema, with too many issues to list (the validator gave up). Check that the file is an AgentCase and fix the writer that produced it.`,
      { subject: source },
    )
  }
  if (!result.success) {
    const issues = zodIssuesToValidationIssues(result.issues)
    const count = `${issues.length}${result.truncated ? '+' : ''} issue${issues.length === 1 ? '' : 's'}${result.truncated ? ', checking stopped there' : ''}`
    throw new CrashlabError(
      'E_AGENTCASE_INVALID',
      `${source} does not match the AgentCase 0.1 schema (${count}):\n${formatIssues(issues)}\nFix these fields in the writer that produced the file.`,
      { subject: source, issues },
    )
  }
  const c = result.data
  checkAgentCaseRules(c, source)
  checkAgentCaseEvents(c.events, source)
  return c
}
