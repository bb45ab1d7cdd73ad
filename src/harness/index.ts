/**
 * The agent-run harness: the one sequence every agent run goes through (config → layered checks →
 * runtime checks → redactor → Session → the agent → finish → checks and oracles → journal), for a
 * callback (`runAgent`) and for a run that starts and ends apart (`startAgentRun`). `record`,
 * `startCapture`, `fork`, `replayRun`, the plugin's setup file (each test's run) and the Vitest
 * fixtures use it; it needs no Vitest.
 */
export { markFailed, replayFailureOf } from './mark-failed.ts'
export { prepareAgentRun } from './prepare-agent-run.ts'
export { runAgent } from './run-agent.ts'
export { type AgentResult, type AgentRun, startAgentRun } from './start-agent-run.ts'
export type {
  AgentRunJournal,
  AgentRunPlan,
  EndedAgentRun,
  FinishRule,
  PreparedAgentRun,
  PrepareOptions,
  SessionPlan,
} from './types.ts'
