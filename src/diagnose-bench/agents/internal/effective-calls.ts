import type { RunView } from '../../../checks/run-view.ts'

/**
 * The calls of a tool that took effect: those that ran without an error, and those a fork blocked
 * (`E_FORK_BLOCKED`: a fork never runs a side effect live, but the agent did ask for it with arguments
 * the tool would have taken). The oracles judge a run and its forks alike through this.
 */
// biome-ignore lint/suspicious/noExplicitAny: the arguments' type is the caller's, as in RunView.toolCalls
export function effectiveCalls<Args = any>(run: RunView, name: string) {
  return run.toolCalls<Args>(name).filter((c) => !c.isError || c.error?.code === 'E_FORK_BLOCKED')
}
