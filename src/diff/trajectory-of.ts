import { CRASHLAB_EXTENSION } from '../case/agentcase/crashlab-extension.ts'
import type { AgentCase, AgentCaseEventType, AgentCaseOutcome } from '../case/agentcase/schema.ts'
import type { JsonValue } from '../case/schema/json.ts'

/**
 * A regression snapshot should fail when the agent does something different, not when the model words
 * the same answer differently or a run gets new ids. The trajectory is the part of a case that says
 * what the agent did: which events happened in which order, which tools it called with which
 * arguments, whether the tools succeeded, how the run ended and which checks passed. Prose (model
 * input and output text, exception and check messages), ids, timestamps, latencies, usage and wire
 * data are left out by construction, so comparing two trajectories needs no ignore list.
 */

/**
 * One event of a trajectory. Every event keeps its `type`; a `tool.call` adds the tool's name and
 * arguments, a `tool.result` the tool's name and its status (`success` or `failure`).
 *
 * @example
 * const step: TrajectoryEvent = { type: 'tool.call', tool: 'issue_refund', arguments: { amount: 49 } }
 */
export type TrajectoryEvent =
  | { type: 'tool.call'; tool: string | null; arguments: JsonValue }
  | { type: 'tool.result'; tool: string | null; status: string | null }
  | { type: Exclude<AgentCaseEventType, 'tool.call' | 'tool.result'> }

/**
 * A check verdict without its message (messages are prose and may embed volatile values).
 *
 * @example
 * const check: TrajectoryCheck = { name: 'maxSteps', passed: true }
 */
export type TrajectoryCheck = { name: string; passed: boolean }

/**
 * What `trajectoryOf` returns: plain JSON, ready for `compare` or a snapshot file.
 *
 * @example
 * const t: Trajectory = trajectoryOf(c)
 */
export type Trajectory = {
  outcome: AgentCaseOutcome
  events: TrajectoryEvent[]
  /** From `extensions["dev.crashlab"].run.checks`, sorted by name; `null` when the case has none (a foreign case). */
  checks: TrajectoryCheck[] | null
}

/**
 * The projection of an AgentCase that the regression snapshot's default `trajectory` mode compares:
 * events in `sequence` order with their type only, except `tool.call` (tool name and arguments) and
 * `tool.result` (tool name and status); the root `outcome`; and the crashlab check verdicts. Model
 * requests and responses appear only as present (`{ type: 'model.request' }`), never with their text.
 *
 * @example
 * const diff = compare(trajectoryOf(baseline), trajectoryOf(candidate), { mode: 'normalized' })
 * // a reworded answer is equal; issue_refund({ amount: 490 }) instead of 49 is
 * // $.events[7].arguments.amount: expected 49, got 490 (value_mismatch)
 */
export function trajectoryOf(agentCase: AgentCase): Trajectory {
  // The format orders events by `sequence`, never by array position or timestamps.
  const events = [...agentCase.events].sort((x, y) => x.sequence - y.sequence)
  return {
    outcome: agentCase.outcome,
    events: events.map((e): TrajectoryEvent => {
      if (e.event_type === 'tool.call') {
        return { type: 'tool.call', tool: text(e.payload.name), arguments: e.payload.arguments ?? null }
      }
      if (e.event_type === 'tool.result') {
        return { type: 'tool.result', tool: text(e.payload.name), status: text(e.payload.status) }
      }
      return { type: e.event_type }
    }),
    checks: checksOf(agentCase),
  }
}

function text(v: JsonValue | undefined): string | null {
  return typeof v === 'string' ? v : null
}

/**
 * Read defensively: a case may come from another tool or an older crashlab, and a malformed extension
 * should make the checks unknown (`null`), not the comparison crash.
 */
function checksOf(c: AgentCase): TrajectoryCheck[] | null {
  const ext = c.extensions[CRASHLAB_EXTENSION]
  const run = isObject(ext) ? ext.run : undefined
  const checks = isObject(run) ? run.checks : undefined
  if (!Array.isArray(checks)) return null
  const out: TrajectoryCheck[] = []
  for (const check of checks) {
    if (isObject(check) && typeof check.name === 'string' && typeof check.passed === 'boolean') {
      out.push({ name: check.name, passed: check.passed })
    }
  }
  // Verdicts are a set, not a sequence: the order checks happened to run in is not behaviour.
  return out.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
