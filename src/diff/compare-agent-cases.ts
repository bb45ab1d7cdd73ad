import type { AgentCase } from '../case/agentcase/schema.ts'
import { compare } from './compare.ts'
import type { CompareOptions, CompareResult } from './difference.ts'

/**
 * Regression compares a fresh AgentCase with a committed baseline. Ids, creation time and replay
 * provenance change on every run without the agent behaving differently, so they are left out, but
 * only at the locations the AgentCase schema gives them: a business payload field named `timestamp`,
 * `event_id` or `replay` is data, and changing it is a regression.
 */

/**
 * The schema locations that change on every run: root identity, creation and replay provenance, and
 * each event's envelope identity, parent and timestamp. Nothing inside a payload.
 *
 * @example
 * compare(baseline, candidate, { ignoredPaths: AGENTCASE_VOLATILE_PATHS })
 */
export const AGENTCASE_VOLATILE_PATHS: readonly string[] = Object.freeze([
  '$.case_id',
  '$.execution_id',
  '$.created_at',
  '$.replay',
  '$.events[*].event_id',
  '$.events[*].parent_event_id',
  '$.events[*].timestamp',
])

/**
 * Options of `compareAgentCases`: those of `compare`, with `normalized` as the default mode.
 * `ignoredPaths` adds to `AGENTCASE_VOLATILE_PATHS`; it never replaces them.
 *
 * @example
 * compareAgentCases(baseline, candidate, { ignoredPaths: ['$.metadata.platform'] })
 */
export interface CompareAgentCasesOptions extends CompareOptions {}

/**
 * Compares two AgentCases as data, ignoring only the volatile schema locations
 * (`AGENTCASE_VOLATILE_PATHS`). The mode is `normalized` by default, so a CRLF or a float rounded on
 * another platform is not a regression; pass `mode: 'exact'` for byte-level strictness.
 *
 * @example
 * const { equal, differences } = compareAgentCases(loadAgentCase('baseline.agentcase'), toAgentCase(run))
 * if (!equal) console.log(formatDifferences(differences))
 */
export function compareAgentCases(
  baseline: AgentCase,
  candidate: AgentCase,
  options: CompareAgentCasesOptions = {},
): CompareResult {
  return compare(baseline, candidate, {
    mode: options.mode ?? 'normalized',
    ...(options.floatTolerance !== undefined && { floatTolerance: options.floatTolerance }),
    ignoredPaths: [...AGENTCASE_VOLATILE_PATHS, ...(options.ignoredPaths ?? [])],
  })
}
