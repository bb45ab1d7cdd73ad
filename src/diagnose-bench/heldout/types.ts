import type { JsonValue } from '../../case/schema/json.ts'
import type { Run } from '../../case/schema/run.ts'
import type { Oracle } from '../../checks/oracles/types.ts'
import type { ScriptPolicy } from '../../testing/types.ts'
import type { GroundTruth, ToolDef } from '../types.ts'

/**
 * The wire API a held-out agent speaks to its model: OpenAI chat completions, OpenAI Responses, or
 * Anthropic Messages.
 *
 * @example
 * const wire: Wire = 'anthropic-messages'
 */
export type Wire = 'openai-chat' | 'openai-responses' | 'anthropic-messages'

/**
 * How a tool's backend fails in an episode: a gateway's HTML page returned with status 200 (`html`), a
 * thrown outage on every call (`throw`), or a thrown timeout on the first call only (`throw-once`).
 *
 * @example
 * const fail: ToolFailure = { tool: 'get_ticket', mode: 'throw-once' }
 */
export interface ToolFailure {
  tool: string
  mode: 'html' | 'throw' | 'throw-once'
}

/**
 * A world of a held-out agent: its tools as the agent runs them (each a `tool()`-wrapped backend, so
 * every call is a step of the run), and the writes they made.
 *
 * @example
 * const world = pharmacyRefillAgent.createWorld({})
 * world.writes // []
 */
export interface HeldoutWorld {
  tools: Record<string, (args: Record<string, unknown>) => unknown>
  writes: Array<{ tool: string; args: Record<string, unknown> }>
}

/**
 * A held-out agent: a real tool loop over one wire API, calling the scripted provider over loopback with
 * plain `fetch`; the scripted model standing in for its LLM (it reads a record, then writes, obeying
 * the rule line when the prompt has it); its world and its oracles; and what the faults rewrite in it.
 * Every agent has a read tool and a write tool, so a read where a write was asked is a wrong tool.
 *
 * @example
 * const agent: HeldoutAgent = itHelpdeskAgent
 * agent.wire // 'openai-responses'
 */
export interface HeldoutAgent {
  name: string
  /** One line: what the agent does. */
  domain: string
  wire: Wire
  /** The full system prompt, rule included. */
  systemPrompt: string
  /** The rule line of the system prompt (a substring of it) that the dropped-policy fault cuts. */
  policyLine: string
  /** The user messages episodes draw from (by seed). */
  inputs: readonly string[]
  tools: readonly ToolDef[]
  /** The tool the model reads the record with: called first. */
  readTool: string
  /** The tool that does what the user asked: the policy line governs its arguments. */
  writeTool: string
  /** The write tool's argument that names the record (what a hallucinated id replaces). */
  idKey: string
  /** A fresh world; `fail` makes one tool's backend fail. */
  createWorld(options: { fail?: ToolFailure }): HeldoutWorld
  /** Runs the agent once against `baseUrl` (the provider's `/v1`); throws as the agent does. */
  run(input: {
    baseUrl: string
    system: string
    input: string
    world: HeldoutWorld
    fetch: typeof fetch
  }): Promise<string>
  /** The scripted model behind the agent, fault-free: obeys the rule line when present, reports failed tools honestly. */
  model(): ScriptPolicy
  /** The task done, the rule kept: over the trajectory only. */
  oracles(): Oracle[]
  /** An id of the record's kind that appears in no input, tool result or prompt of the agent, by seed. */
  fabricateId(seed: number): string
  /** The write tool's arguments made to break its schema (a string where a number goes, a key gone). */
  breakSchema(args: Record<string, unknown>): Record<string, unknown>
  /** The read tool's arguments for the wrong-tool fault, from the write call it replaces. */
  wrongToolArgs(args: Record<string, unknown>): Record<string, unknown>
}

/** The fault kinds of the held-out set: faults with a failure, the recovered runs, and the clean run. */
export const HELDOUT_FAULT_KINDS = [
  'clean',
  'dropped-policy',
  'wrong-tool',
  'hallucinated-id',
  'schema-argument',
  'tool-html-ignored',
  'tool-throws-ignored',
  'tool-fails-reported',
  'provider-5xx',
  'loop',
  'length-cutoff',
  'recovered-429',
  'recovered-500',
  'recovered-tool-error',
  'recovered-bad-argument',
] as const

/**
 * A held-out fault kind.
 *
 * @example
 * const kind: HeldoutFaultKind = 'recovered-429'
 */
export type HeldoutFaultKind = (typeof HELDOUT_FAULT_KINDS)[number]

/**
 * True for the kinds whose run meets a transient error and still passes every oracle (truth
 * `NO_FAILURE`): where a diagnoser's false alarms are measured beside the clean runs'.
 *
 * @example
 * isRecoveredKind('recovered-500') // true
 */
export function isRecoveredKind(kind: HeldoutFaultKind): boolean {
  return kind.startsWith('recovered-')
}

/**
 * One recorded held-out episode with its ground truth.
 *
 * @example
 * const { run, truth } = await runHeldoutEpisode(pharmacyRefillAgent, 'loop', 1)
 */
export interface HeldoutEpisode {
  agent: string
  wire: Wire
  fault: HeldoutFaultKind
  seed: number
  run: Run
  truth: GroundTruth
  /** What the fault rewrote, at which model call (0-based, failed calls counted): the truth's source. */
  injections: HeldoutInjection[]
}

/**
 * What a fault did at a model call (`index`, 0-based over every call the provider received).
 *
 * @example
 * const injection: HeldoutInjection = { kind: 'rewrote-call', index: 1, tool: 'get_ticket' }
 */
export type HeldoutInjection =
  | { kind: 'rewrote-call'; index: number; tool: string; args: JsonValue }
  | { kind: 'broke-rule'; index: number; tool: string }
  | { kind: 'provider-fault'; index: number; status: number }
  | { kind: 'claimed-success'; index: number }
  | { kind: 'repeated-call'; index: number; tool: string }
  | { kind: 'cut-off'; index: number }
  | { kind: 'retried-call'; index: number; tool: string }
