import { randomUUID } from 'node:crypto'
import type { AgentCase, AgentCaseReplay } from '../case/agentcase/schema.ts'
import { validateAgentCase } from '../case/agentcase/validate-agent-case.ts'
import { checkMockSource } from './internal/interactions.ts'

/**
 * The data-only replay artifact of `crashlab replay <case> --mock --output <out>`: the recorded events,
 * copied as they are, under replay provenance. It does not run any code; it states that every model
 * answer and tool result in it is recorded data that a mock replay serves instead of a live call.
 */

/**
 * Options of `projectMockReplay`.
 *
 * @example
 * projectMockReplay(c, { allowIncomplete: true, source: 'failure.agentcase' })
 */
export interface ProjectMockReplayOptions {
  /** Project a capture that is not `complete`. Default false. */
  allowIncomplete?: boolean
  /** Names the case in messages (the CLI passes the path). */
  source?: string
  /** The clock of `created_at` and `replay.replayed_at`; `new Date()` by default. */
  now?: () => Date
}

/** What the projection substitutes, stated in its provenance. */
const SUBSTITUTIONS: AgentCaseReplay['substitutions'] = [
  {
    target: 'model.provider_calls',
    description: 'recorded model responses served as data; no provider is called',
  },
  { target: 'tool.side_effects', description: 'recorded tool results served as data; no tool is run' },
]

/**
 * Projects a captured case into its mock replay: a new `case_id` (it is a new artifact), the same
 * `execution_id` (it is not a new execution of the application), `created_at` and `replay.replayed_at`
 * now, and `replay` = `{ mode: 'mock', source_case_id, substitutions, determinism_guarantee:
 * 'deterministic', live_side_effects_approved: false, … }`. Events, outcome, completeness and redaction
 * are copied unchanged. The source must be mock-replayable: a capture (not already a replay), complete
 * unless `allowIncomplete`, every request and call with exactly one answer (`E_MOCK_SOURCE`,
 * `E_MOCK_MISSING`). The result is validated; write it with `writeAgentCase`.
 *
 * @example
 * import { loadAgentCase, projectMockReplay, writeAgentCase } from 'crashlab'
 *
 * const source = loadAgentCase('failure.agentcase')
 * writeAgentCase('replayed.agentcase', projectMockReplay(source, { source: 'failure.agentcase' }))
 */
export function projectMockReplay(c: AgentCase, options: ProjectMockReplayOptions = {}): AgentCase {
  const source = options.source ?? `case ${(c as Partial<AgentCase>)?.case_id ?? '(unknown)'}`
  const checked = validateAgentCase(c, { source })
  checkMockSource(checked, source, { allowIncomplete: options.allowIncomplete ?? false, projection: true })
  const at = (options.now ?? (() => new Date()))().toISOString()
  // A deep copy: the projection shares no object with its source.
  const copy = structuredClone(checked)
  const projected: AgentCase = {
    ...copy,
    case_id: randomUUID(),
    created_at: at,
    replay: {
      mode: 'mock',
      source_case_id: checked.case_id,
      replayed_at: at,
      substitutions: structuredClone(SUBSTITUTIONS),
      changed_provider: null,
      changed_model: null,
      changed_configuration: {},
      determinism_guarantee: 'deterministic',
      unresolved_external_dependencies: [],
      live_side_effects_approved: false,
      extensions: {},
    },
  }
  return validateAgentCase(projected, { source: `the mock replay of ${source}` })
}
