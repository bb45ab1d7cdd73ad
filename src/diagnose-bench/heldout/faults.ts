import type { JsonObject } from '../../case/schema/json.ts'
import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import { sessionFetch } from '../../engine/session-fetch.ts'
import { record } from '../../production-capture/record.ts'
import { startScriptedProvider } from '../../testing/start-scripted-provider.ts'
import type { ScriptedToolCall, ScriptPolicy } from '../../testing/types.ts'
import { failureOf, lastToolResults } from '../agents/internal/read-request.ts'
import { CLAIMED_SUCCESS } from '../faults.ts'
import type { GroundTruth } from '../types.ts'
import type {
  HeldoutAgent,
  HeldoutEpisode,
  HeldoutFaultKind,
  HeldoutInjection,
  ToolFailure,
} from './types.ts'

/**
 * The tool backend an episode takes down, by fault kind (and seed): an HTML page on the read tool, an
 * outage of the write tool, or one timeout of the read tool that a retry gets past. For
 * `tool-fails-reported`, odd seeds take the read tool down with the HTML page, even seeds the write tool.
 *
 * @example
 * toolFailureOf(pharmacyRefillAgent, 'tool-html-ignored', 1) // { tool: 'get_prescription', mode: 'html' }
 */
export function toolFailureOf(
  agent: HeldoutAgent,
  kind: HeldoutFaultKind,
  seed: number,
): ToolFailure | undefined {
  if (kind === 'tool-html-ignored') return { tool: agent.readTool, mode: 'html' }
  if (kind === 'tool-throws-ignored') return { tool: agent.writeTool, mode: 'throw' }
  if (kind === 'tool-fails-reported')
    return seed % 2 === 1 ? { tool: agent.readTool, mode: 'html' } : { tool: agent.writeTool, mode: 'throw' }
  if (kind === 'recovered-tool-error') return { tool: agent.readTool, mode: 'throw-once' }
  return undefined
}

/**
 * Records one held-out episode: the agent against the scripted provider over its wire API, with the
 * fault `kind` injected into its model (or its world), graded by its oracles. The ground truth comes
 * from what the injection did and at which model call, located in the recorded steps; never from a
 * diagnoser. An episode whose fault found nothing to act on throws: it would not be what it says.
 *
 * @example
 * const { run, truth } = await runHeldoutEpisode(itHelpdeskAgent, 'wrong-tool', 1)
 * truth.label // 'WRONG_TOOL_SELECTION'
 */
export async function runHeldoutEpisode(
  agent: HeldoutAgent,
  kind: HeldoutFaultKind,
  seed: number,
): Promise<HeldoutEpisode> {
  const injections: HeldoutInjection[] = []
  const system =
    kind === 'dropped-policy'
      ? agent.systemPrompt.replace(agent.policyLine, '').replace(/ {2,}/g, ' ').trim()
      : agent.systemPrompt
  const message = agent.inputs[seed % agent.inputs.length]!
  const provider = await startScriptedProvider({
    policy: injectFault(agent, kind, seed, agent.model(), injections),
    seed,
  })
  try {
    const fetch = sessionFetch()
    const { run } = await record(
      agent.name,
      (input: { message: string; system: string }) =>
        agent.run({
          baseUrl: `${provider.url}/v1`,
          system: input.system,
          input: input.message,
          world: agent.createWorld({ fail: toolFailureOf(agent, kind, seed) }),
          fetch,
        }),
      {
        input: { message, system },
        agent: agent.name,
        oracles: agent.oracles(),
        store: false,
        config: false,
        tags: ['bench', 'heldout', `agent:${agent.name}`, `fault:${kind}`, `seed:${seed}`],
      },
    )
    const truth = heldoutGroundTruth(agent, kind, run, injections, toolFailureOf(agent, kind, seed))
    return { agent: agent.name, wire: agent.wire, fault: kind, seed, run, truth, injections }
  } finally {
    await provider.close()
  }
}

/** The arguments of the newest call to `name` in the conversation. */
function lastCallOf(request: NormalizedRequest, name: string): ScriptedToolCall | undefined {
  let found: ScriptedToolCall | undefined
  for (const m of request.messages)
    for (const p of m.parts) if (p.type === 'tool_call' && p.name === name) found = { name, args: p.args }
  return found
}

/**
 * Wraps the fault-free model with the fault: what it rewrites, and at which call, goes to `out`.
 *
 * @example
 * await startScriptedProvider({ policy: injectFault(agent, 'loop', 1, agent.model(), log) })
 */
export function injectFault(
  agent: HeldoutAgent,
  kind: HeldoutFaultKind,
  seed: number,
  model: ScriptPolicy,
  out: HeldoutInjection[],
): ScriptPolicy {
  const has = (k: HeldoutInjection['kind']) => out.some((i) => i.kind === k)
  let original: ScriptedToolCall | undefined
  return async (request, ctx) => {
    const index = ctx.index
    const last = lastToolResults(request).at(-1)
    const failed = last !== undefined && failureOf(last.content, last.data) !== undefined
    if (kind === 'provider-5xx' && index >= 1) {
      const status = seed % 2 === 1 ? 500 : 503
      if (!has('provider-fault')) out.push({ kind: 'provider-fault', index, status })
      return { fault: { type: 'server_error', status } }
    }
    if ((kind === 'recovered-429' || kind === 'recovered-500') && index === 1 && !has('provider-fault')) {
      if (kind === 'recovered-429') {
        out.push({ kind: 'provider-fault', index, status: 429 })
        return { fault: { type: 'rate_limit', retryAfter: 0.01 } }
      }
      const status = seed % 2 === 1 ? 500 : 502
      out.push({ kind: 'provider-fault', index, status })
      return { fault: { type: 'server_error', status } }
    }
    if (
      (kind === 'tool-html-ignored' || kind === 'tool-throws-ignored') &&
      failed &&
      !has('claimed-success')
    ) {
      out.push({ kind: 'claimed-success', index })
      return { text: CLAIMED_SUCCESS }
    }
    if (
      kind === 'wrong-tool' &&
      has('rewrote-call') &&
      last?.name === agent.readTool &&
      !has('claimed-success')
    ) {
      out.push({ kind: 'claimed-success', index })
      return { text: CLAIMED_SUCCESS }
    }
    if (kind === 'loop' && last?.name === agent.readTool && !failed) {
      const again = lastCallOf(request, agent.readTool)
      if (again) {
        if (!has('repeated-call')) out.push({ kind: 'repeated-call', index, tool: agent.readTool })
        return { text: 'Let me check the record once more.', toolCalls: [again] }
      }
    }
    if (kind === 'recovered-tool-error' && failed && last?.name === agent.readTool && !has('retried-call')) {
      const again = lastCallOf(request, agent.readTool)
      if (again) {
        out.push({ kind: 'retried-call', index, tool: agent.readTool })
        return { text: 'The lookup timed out; trying once more.', toolCalls: [again] }
      }
    }
    if (kind === 'recovered-bad-argument' && failed && last?.name === agent.writeTool && original) {
      if (!has('retried-call')) {
        out.push({ kind: 'retried-call', index, tool: agent.writeTool })
        return { text: 'The arguments were wrong; correcting them.', toolCalls: [original] }
      }
    }
    const turn = await model(request, ctx)
    const write = 'fault' in turn ? undefined : turn.toolCalls?.find((c) => c.name === agent.writeTool)
    if (!write) return turn
    const args = write.args as JsonObject
    const replace = (call: ScriptedToolCall) => ({
      ...turn,
      toolCalls: turn.toolCalls!.map((c) => (c === write ? call : c)),
    })
    if (kind === 'dropped-policy' && !has('broke-rule')) {
      // The rule line is gone from the prompt: the model's own write breaks it (see the agent's writeArgs).
      out.push({ kind: 'broke-rule', index, tool: agent.writeTool })
      return turn
    }
    if (kind === 'length-cutoff' && !has('cut-off')) {
      out.push({ kind: 'cut-off', index })
      const text = turn.text ?? ''
      return { text: text.slice(0, Math.max(8, Math.floor(text.length / 2))), finishReason: 'length' }
    }
    if (kind === 'wrong-tool' && !has('rewrote-call')) {
      const call = { name: agent.readTool, args: agent.wrongToolArgs(args) as JsonObject }
      out.push({ kind: 'rewrote-call', index, tool: call.name, args: call.args })
      return replace(call)
    }
    if (kind === 'hallucinated-id' && !has('rewrote-call')) {
      const call = { name: agent.writeTool, args: { ...args, [agent.idKey]: agent.fabricateId(seed) } }
      out.push({ kind: 'rewrote-call', index, tool: call.name, args: call.args })
      return replace(call)
    }
    if ((kind === 'schema-argument' || kind === 'recovered-bad-argument') && !has('rewrote-call')) {
      original = write
      const call = { name: agent.writeTool, args: agent.breakSchema(args) as JsonObject }
      out.push({ kind: 'rewrote-call', index, tool: call.name, args: call.args })
      return replace(call)
    }
    return turn
  }
}

/**
 * The ground truth of an episode, from its injections located in the recorded steps (the culprit step
 * as docs/diagnose.md defines it: the model call that made the bad choice; for a mishandled tool error,
 * the failed tool step; for a loop, the first repeated call; for a provider failure, the first failed
 * call). `acceptedSteps` adds the other steps of the same action.
 *
 * @example
 * heldoutGroundTruth(agent, 'loop', run, injections, undefined).label // 'STEP_REPETITION'
 */
export function heldoutGroundTruth(
  agent: HeldoutAgent,
  kind: HeldoutFaultKind,
  run: Run,
  injections: readonly HeldoutInjection[],
  fail?: ToolFailure,
): GroundTruth {
  const where = `held-out episode ${agent.name} ${kind} (run ${run.id})`
  const llmSteps = run.steps.filter((s) => s.type === 'llm').map((s) => s.index)
  const llm = (call: number): number => {
    const step = llmSteps[call]
    if (step === undefined)
      throw new Error(`${where}: model call ${call} is not among its ${llmSteps.length} LLM steps`)
    return step
  }
  const toolAfter = (from: number, name: string): number => {
    const step = run.steps.find((s) => s.index > from && s.type === 'tool' && s.name === name)
    if (!step) throw new Error(`${where}: no ${name} tool step after step ${from}`)
    return step.index
  }
  const need = <K extends HeldoutInjection['kind']>(k: K): Extract<HeldoutInjection, { kind: K }> => {
    const hit = injections.find((i) => i.kind === k)
    if (!hit) throw new Error(`${where}: the fault found nothing to act on (no ${k})`)
    return hit as Extract<HeldoutInjection, { kind: K }>
  }
  const none = (how: string): GroundTruth => ({
    label: 'NO_FAILURE',
    failingStep: null,
    acceptedSteps: [],
    how,
  })
  switch (kind) {
    case 'clean':
      return none('a clean episode')
    case 'recovered-429':
    case 'recovered-500': {
      const f = need('provider-fault')
      return none(`the provider answered ${f.status} once; the agent retried and finished`)
    }
    case 'recovered-tool-error':
      need('retried-call')
      return none(`${agent.readTool} timed out once; the model called it again and finished`)
    case 'recovered-bad-argument':
      need('retried-call')
      return none(
        `the model's ${agent.writeTool} call broke its schema, was refused, and the model corrected it`,
      )
    case 'dropped-policy': {
      const at = llm(need('broke-rule').index)
      return {
        label: 'TASK_SPEC_VIOLATION',
        failingStep: at,
        acceptedSteps: [at, toolAfter(at, agent.writeTool)],
        how: `the rule "${agent.policyLine}" was cut from the prompt and the model broke it calling ${agent.writeTool}`,
      }
    }
    case 'wrong-tool': {
      const at = llm(need('rewrote-call').index)
      return {
        label: 'WRONG_TOOL_SELECTION',
        failingStep: at,
        acceptedSteps: [at, toolAfter(at, agent.readTool)],
        how: `the model called ${agent.readTool} (a read) where ${agent.writeTool} was asked, then claimed success`,
      }
    }
    case 'hallucinated-id':
    case 'schema-argument': {
      const at = llm(need('rewrote-call').index)
      return {
        label: 'BAD_TOOL_ARGUMENTS',
        failingStep: at,
        acceptedSteps: [at, toolAfter(at, agent.writeTool)],
        how:
          kind === 'hallucinated-id'
            ? `the model called ${agent.writeTool} with a ${agent.idKey} that appears nowhere before`
            : `the model called ${agent.writeTool} with arguments against its schema`,
      }
    }
    case 'tool-html-ignored':
    case 'tool-throws-ignored': {
      const claimed = llm(need('claimed-success').index)
      const tool = kind === 'tool-html-ignored' ? agent.readTool : agent.writeTool
      const at = lastToolBefore(run, claimed, tool, where)
      return {
        label: 'TOOL_ERROR_MISHANDLED',
        failingStep: at,
        acceptedSteps: [at, claimed],
        how:
          kind === 'tool-html-ignored'
            ? `${tool} returned a gateway's HTML error page (status 200) and the model claimed success`
            : `${tool} threw and the model claimed success`,
      }
    }
    case 'tool-fails-reported': {
      if (!fail) throw new Error(`${where}: no tool backend was down`)
      const at = run.steps.find((s) => s.type === 'tool' && s.name === fail.tool)?.index
      if (at === undefined)
        throw new Error(`${where}: ${fail.tool}, the backend that was down, was never called`)
      return {
        label: 'EXTERNAL_FAILURE',
        failingStep: at,
        acceptedSteps: [at],
        how: `${fail.tool} failed (${fail.mode === 'html' ? "a gateway's HTML page" : 'an outage'}) and the model told the user`,
      }
    }
    case 'provider-5xx': {
      const f = need('provider-fault')
      const at = llm(f.index)
      return {
        label: 'EXTERNAL_FAILURE',
        failingStep: at,
        acceptedSteps: [at],
        how: `the provider answered ${f.status} from model call ${f.index} on; the agent's retries ran out`,
      }
    }
    case 'loop': {
      const at = llm(need('repeated-call').index)
      return {
        label: 'STEP_REPETITION',
        failingStep: at,
        acceptedSteps: [at, toolAfter(at, agent.readTool)],
        how: `the model called ${agent.readTool} again with the same arguments until the agent gave up`,
      }
    }
    case 'length-cutoff': {
      const at = llm(need('cut-off').index)
      return {
        label: 'TASK_SPEC_VIOLATION',
        failingStep: at,
        acceptedSteps: [at],
        how: `the model's answer was cut at the token limit before its ${agent.writeTool} call; the task was left undone`,
      }
    }
  }
}

function lastToolBefore(run: Run, before: number, name: string, where: string): number {
  const steps = run.steps.filter((s) => s.index < before && s.type === 'tool' && s.name === name)
  const step = steps.at(-1)
  if (!step) throw new Error(`${where}: no ${name} tool step before step ${before}`)
  return step.index
}
