import { startAgentRun } from './start-agent-run.ts'
import type { AgentRunPlan, EndedAgentRun } from './types.ts'

/**
 * Runs `fn(plan.input)` as one agent run, from the config file to the graded run: `startAgentRun`
 * opens it (config → layered checks → runtime checks → redactor → journal → Session), the agent runs in
 * the Session, and the run ends by the plan's `finishRule` (see `FinishRule`), is checked (`failIf`, the
 * runtime checks), graded (`grade`) and handed to the journal. What the agent threw comes back as
 * `error` (`errorFrom: 'agent'`, the run's status `error`), except under `finishRule: 'test'`, where it
 * is thrown once the run has ended.
 *
 * @example
 * const { run, output, error } = await runAgent(
 *   { session: { mode: 'record', label: 'refund' }, name: 'refund-bot', input: 'Refund A17', finishRule: 'record', grade: { agent: 'refund-bot' } },
 *   (input) => refundBot(input),
 * )
 */
export async function runAgent<I, O>(
  plan: AgentRunPlan<I>,
  fn: (input: I) => O | Promise<O>,
): Promise<EndedAgentRun<O>> {
  const agentRun = await startAgentRun<I, O>(plan)
  let result: { output?: O; error?: unknown }
  try {
    result = { output: await agentRun.run(() => fn(plan.input as I)) }
  } catch (error) {
    result = { error }
  }
  const ended = await agentRun.finish(result)
  // A test fails with the agent's own error, unchanged, once its run has ended.
  if (plan.finishRule === 'test' && ended.errorFrom === 'agent') throw ended.error
  return ended
}
