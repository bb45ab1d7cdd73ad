import type { JsonValue } from '../case/schema/json.ts'
import type { FailureLabel, Run } from '../case/schema/run.ts'
import type { Oracle } from '../checks/oracles/types.ts'
import type { ScriptPolicy } from '../testing/types.ts'

/**
 * A tool as the chat-completions wire declares it: what the agent sends in `tools`.
 *
 * @example
 * const def: ToolDef = { name: 'get_order', description: 'Look an order up', parameters: { type: 'object' } }
 */
export interface ToolDef {
  name: string
  description: string
  parameters: Record<string, JsonValue>
}

/**
 * How one episode runs the agent: the endpoint, the system prompt (the fault may have cut a line out of
 * it), the user's message, and the agent's world (its tools' backends), made by `createWorld`.
 *
 * @example
 * await agent.run({ baseUrl: `${provider.url}/v1`, system: agent.systemPrompt, input: agent.inputs[0]!, world, fetch })
 */
export interface AgentRunInput<W> {
  baseUrl: string
  system: string
  input: string
  world: W
  /** The fetch the agent calls the model with: `sessionFetch()` during a recording. */
  fetch: typeof fetch
}

/**
 * A demo agent of the bench: a real tool loop over the chat-completions wire, the scripted model that
 * stands in for its LLM, its world and its oracles, and what each fault targets in it.
 *
 * @example
 * const agent: BenchAgent = refundBotAgent
 * agent.scoredApart // false: pooled with the other demo agents
 */
export interface BenchAgent<W = unknown> {
  name: string
  /** One line: what the agent does. */
  domain: string
  /**
   * True for an agent scored in its own rows, not pooled with the demo agents: calendar-assistant, built
   * as a held-out agent and seen while the diagnosis rules were tuned since. Every agent of this set is
   * one the diagnosers were tuned on; the agents never seen are the held-out set (`--set heldout`).
   */
  scoredApart: boolean
  /** The full system prompt, rule included. */
  systemPrompt: string
  /** The rule line of the system prompt that the dropped-policy fault removes (a substring of it). */
  policyLine: string
  /** The user messages episodes draw from (by seed). */
  inputs: readonly string[]
  tools: readonly ToolDef[]
  /** A fresh world; `down` names the tool whose backend answers a gateway's HTML 502 page. */
  createWorld(options: { down?: string }): W
  /** Runs the agent once; throws as the agent does (a provider error, a step limit). */
  run(input: AgentRunInput<W>): Promise<string>
  /**
   * The scripted model behind the agent. It obeys the policy line when the system prompt has it and breaks
   * it when it does not; it reports a failed tool to the user.
   */
  model(): ScriptPolicy
  /** The agent's oracles, over the trajectory only (so a fork is judged as the run was): the task done, the rule kept. */
  oracles(): Oracle[]
  /** The tool whose call the policy line governs: the first call to it breaks the rule once the line is gone. */
  policyTool: string
  /** The wrong-tool fault: the call to `expected` is replaced by a call to `chosen` with these arguments. */
  wrongTool: { expected: string; chosen: string; args(expectedArgs: JsonValue): JsonValue }
  /** The bad-argument fault: this tool's first call gets these arguments instead, against its schema. */
  badArgument: { tool: string; corrupt(args: JsonValue): JsonValue }
  /** The tool whose backend the HTML 502 fault takes down. */
  gatewayTool: string
}

/** The faults the bench injects, plus the clean episode. */
export const FAULT_KINDS = ['clean', 'dropped-policy', 'html-502', 'wrong-tool', 'bad-argument'] as const

/**
 * A fault kind, or `clean`.
 *
 * @example
 * const fault: FaultKind = 'wrong-tool'
 */
export type FaultKind = (typeof FAULT_KINDS)[number]

/**
 * What really went wrong in an episode, known from how it was built: the label, the step where it went
 * wrong (`failingStep`, null for `NO_FAILURE`) and every step that counts as that same action (the model
 * call that made a tool call and the tool step that ran it are one action).
 *
 * @example
 * const truth: GroundTruth = { label: 'WRONG_TOOL_SELECTION', failingStep: 2, acceptedSteps: [2, 3], how: '…' }
 */
export interface GroundTruth {
  label: FailureLabel
  failingStep: number | null
  acceptedSteps: number[]
  /** One sentence: how the episode was built. */
  how: string
}

/**
 * One recorded episode with its ground truth.
 *
 * @example
 * const { run, truth } = await runEpisode(refundBotAgent, 'html-502', 3)
 */
export interface Episode {
  agent: string
  scoredApart: boolean
  fault: FaultKind
  seed: number
  run: Run
  truth: GroundTruth
}
