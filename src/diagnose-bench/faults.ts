import type { Run } from '../case/schema/run.ts'
import { sessionFetch } from '../engine/session-fetch.ts'
import { record } from '../production-capture/record.ts'
import { startScriptedProvider } from '../testing/start-scripted-provider.ts'
import type { ScriptedTurn, ScriptPolicy } from '../testing/types.ts'
import { lastToolResults } from './agents/internal/read-request.ts'
import { BENCH_ENTRY_POINT, type BenchEntryInput, benchAgentEntry, withOutage } from './entry.ts'
import type { BenchAgent, Episode, FaultKind, GroundTruth } from './types.ts'

/**
 * Where the HTML 502 lands, by episode (`seed % 3`): on the model provider (the agent's call fails), or
 * on a tool's backend, which the model either reports to the user or ignores and claims success.
 */
export const HTML_502_VARIANTS = ['provider', 'tool-reported', 'tool-ignored'] as const

/** What a model that ignores a failed tool says: success, with nothing behind it. */
export const CLAIMED_SUCCESS = 'All done: everything is taken care of.'

/** What a fault did, and at which model call: the ground truth is computed from these. */
export type Injection =
  | { kind: 'call'; index: number; tool: string }
  | { kind: 'provider-502'; index: number }
  | { kind: 'ignored'; index: number }

/**
 * Options of `runEpisode`.
 *
 * @example
 * const options: RunEpisodeOptions = { cassette: 'bench/diagnoser/runs/run-01.cassette.json', tags: [] }
 */
export interface RunEpisodeOptions {
  /** Writes the run to this cassette too. */
  cassette?: string
  /** Tags of the run. Default: `bench`, the agent, the fault and the seed. */
  tags?: string[]
  /**
   * Store the bench's entry point with the run (an absolute path to this install), so forks and `verify`
   * can start it again. Default true; false for runs kept in a repository.
   */
  entryPoint?: boolean
}

/**
 * Runs one episode: the agent against the scripted provider, with `fault` injected (or none for
 * `clean`), recorded as a graded run. The ground truth comes from how the episode was built: which model
 * call the fault rewrote, which backend it took down, and what the model did next, located in the
 * recorded steps; never from a diagnoser.
 *
 * - `dropped-policy`: the policy line is cut from the system prompt and the model breaks it at its first
 *   call to the governed tool: `TASK_SPEC_VIOLATION` at that model call.
 * - `html-502`: by `seed % 3`, the provider answers its gateway page from the second model call on
 *   (`EXTERNAL_FAILURE` at that call); or a tool's backend does and the model tells the user
 *   (`EXTERNAL_FAILURE` at the tool step); or the model ignores it and claims success
 *   (`TOOL_ERROR_MISHANDLED` at the tool step).
 * - `wrong-tool`: the call to the right tool is replaced by a call to a wrong one: `WRONG_TOOL_SELECTION`.
 * - `bad-argument`: a call's arguments break the tool's schema: `BAD_TOOL_ARGUMENTS`.
 * - `clean`: `NO_FAILURE`.
 *
 * @example
 * const { run, truth } = await runEpisode(refundBotAgent, 'wrong-tool', 1)
 * truth.label // 'WRONG_TOOL_SELECTION'
 */
export async function runEpisode<W>(
  agent: BenchAgent<W>,
  fault: FaultKind,
  seed: number,
  options: RunEpisodeOptions = {},
): Promise<Episode> {
  const setup = episodeSetup(agent, fault, seed)
  const injections: Injection[] = []
  const provider = await startScriptedProvider({ policy: setup.model(injections), seed })
  try {
    const { run } = await withOutage(agent.name, setup.down, () =>
      record(
        agent.name,
        (i: BenchEntryInput) => benchAgentEntry(i, { baseUrl: `${provider.url}/v1`, fetch: sessionFetch() }),
        {
          input: setup.input,
          agent: agent.name,
          store: false,
          config: false,
          cassette: options.cassette,
          entryPoint: options.entryPoint === false ? undefined : BENCH_ENTRY_POINT,
          tags: options.tags ?? ['bench', `agent:${agent.name}`, `fault:${fault}`, `seed:${seed}`],
        },
      ),
    )
    const truth = groundTruth(agent, fault, setup.variant, run, injections)
    return { agent: agent.name, scoredApart: agent.scoredApart, fault, seed, run, truth }
  } finally {
    await provider.close()
  }
}

/**
 * How an episode is built, without running it: its input, the backend it takes down, the HTML 502
 * variant, and the faulty model (a fresh one per call, which logs what it injected into `log`). The
 * forks that verify a fix meet the same model and the same world.
 *
 * @example
 * const setup = episodeSetup(refundBotAgent, 'wrong-tool', 1)
 * await startScriptedProvider({ policy: setup.model([]), seed: 1 })
 */
export function episodeSetup<W>(agent: BenchAgent<W>, fault: FaultKind, seed: number) {
  const variant = HTML_502_VARIANTS[seed % HTML_502_VARIANTS.length]!
  const system =
    fault === 'dropped-policy'
      ? agent.systemPrompt.replace(agent.policyLine, '').replace(/ {2,}/g, ' ').trim()
      : agent.systemPrompt
  const down = fault === 'html-502' && variant !== 'provider' ? agent.gatewayTool : undefined
  const input: BenchEntryInput = {
    agent: agent.name,
    message: agent.inputs[seed % agent.inputs.length]!,
    system,
  }
  return {
    input,
    down,
    variant,
    model: (log: Injection[] = []): ScriptPolicy => inject(agent, fault, variant, agent.model(), log),
  }
}

function inject<W>(
  agent: BenchAgent<W>,
  fault: FaultKind,
  variant: (typeof HTML_502_VARIANTS)[number],
  model: ScriptPolicy,
  out: Injection[],
): ScriptPolicy {
  const once = (kind: Injection['kind']) => !out.some((i) => i.kind === kind)
  return async (request, ctx) => {
    if (fault === 'html-502' && variant === 'provider' && ctx.index >= 1) {
      if (once('provider-502')) out.push({ kind: 'provider-502', index: ctx.index })
      return { fault: { type: 'server_error', status: 502 } }
    }
    if (fault === 'html-502' && variant === 'tool-ignored') {
      const failed = lastToolResults(request).some((r) => r.content.includes('502 Bad Gateway'))
      if (failed && once('ignored')) {
        out.push({ kind: 'ignored', index: ctx.index })
        return { text: CLAIMED_SUCCESS }
      }
    }
    const turn: ScriptedTurn = await model(request, ctx)
    if (!turn.toolCalls || 'fault' in turn || !once('call')) return turn
    const target =
      fault === 'wrong-tool'
        ? agent.wrongTool.expected
        : fault === 'bad-argument'
          ? agent.badArgument.tool
          : fault === 'dropped-policy'
            ? agent.policyTool
            : fault === 'html-502'
              ? agent.gatewayTool
              : undefined
    const hit = turn.toolCalls.find((c) => c.name === target)
    if (!hit) return turn
    out.push({
      kind: 'call',
      index: ctx.index,
      tool: fault === 'wrong-tool' ? agent.wrongTool.chosen : hit.name,
    })
    if (fault === 'wrong-tool') {
      const { chosen, args } = agent.wrongTool
      return {
        ...turn,
        toolCalls: turn.toolCalls.map((c) => (c === hit ? { name: chosen, args: args(c.args) } : c)),
      }
    }
    if (fault === 'bad-argument') {
      return {
        ...turn,
        toolCalls: turn.toolCalls.map((c) =>
          c === hit ? { ...c, args: agent.badArgument.corrupt(c.args) } : c,
        ),
      }
    }
    return turn
  }
}

function groundTruth<W>(
  agent: BenchAgent<W>,
  fault: FaultKind,
  variant: (typeof HTML_502_VARIANTS)[number],
  run: Run,
  injections: readonly Injection[],
): GroundTruth {
  const llmSteps = run.steps.filter((s) => s.type === 'llm').map((s) => s.index)
  const llmStep = (call: number): number => {
    const step = llmSteps[call]
    if (step === undefined)
      throw new Error(
        `bench: model call ${call} is not among the ${llmSteps.length} LLM steps of run ${run.id}`,
      )
    return step
  }
  const toolStepAfter = (from: number, name: string): number => {
    const step = run.steps.find((s) => s.index > from && s.type === 'tool' && s.name === name)
    if (!step) throw new Error(`bench: no ${name} tool step after step ${from} in run ${run.id}`)
    return step.index
  }
  const call = injections.find((i) => i.kind === 'call')
  const none: GroundTruth = {
    label: 'NO_FAILURE',
    failingStep: null,
    acceptedSteps: [],
    how: 'a clean episode',
  }
  if (fault === 'clean') return none
  if (fault === 'html-502') {
    const provider = injections.find((i) => i.kind === 'provider-502')
    if (provider) {
      const at = llmStep(provider.index)
      return {
        label: 'EXTERNAL_FAILURE',
        failingStep: at,
        acceptedSteps: [at],
        how: 'the model provider answered a gateway HTML 502 page, and the agent failed',
      }
    }
    if (!call) return { ...none, how: `the ${agent.gatewayTool} backend was down but never called` }
    const toolAt = toolStepAfter(llmStep(call.index), agent.gatewayTool)
    const ignored = injections.find((i) => i.kind === 'ignored')
    if (ignored) {
      return {
        label: 'TOOL_ERROR_MISHANDLED',
        failingStep: toolAt,
        acceptedSteps: [toolAt, llmStep(ignored.index)],
        how: `${agent.gatewayTool} answered a gateway HTML 502 page and the model claimed success`,
      }
    }
    return {
      label: 'EXTERNAL_FAILURE',
      failingStep: toolAt,
      acceptedSteps: [toolAt],
      how: `${agent.gatewayTool} answered a gateway HTML 502 page and the model told the user (${variant})`,
    }
  }
  if (!call) return { ...none, how: `the ${fault} fault found no call to rewrite` }
  const at = llmStep(call.index)
  const toolAt = toolStepAfter(at, call.tool)
  const label =
    fault === 'dropped-policy'
      ? 'TASK_SPEC_VIOLATION'
      : fault === 'wrong-tool'
        ? 'WRONG_TOOL_SELECTION'
        : 'BAD_TOOL_ARGUMENTS'
  const how =
    fault === 'dropped-policy'
      ? `the rule "${agent.policyLine}" was cut from the system prompt and the model broke it calling ${call.tool}`
      : fault === 'wrong-tool'
        ? `the model called ${call.tool} instead of ${agent.wrongTool.expected}`
        : `the model called ${call.tool} with arguments against its schema`
  return { label, failingStep: at, acceptedSteps: [at, toolAt], how }
}
