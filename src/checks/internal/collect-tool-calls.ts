import { canonicalStringify } from '../../case/canonical-json.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { Message, ToolResultPart } from '../../case/schema/normalized.ts'
import type { Run } from '../../case/schema/run.ts'
import type { StepError } from '../../case/schema/step.ts'
import { isFailedToolCall } from '../failed-tool-call.ts'

/**
 * One tool call of a run, wherever it was seen. `args` and `result` are typed loosely by default so that
 * an oracle can write `call.args.amount`; pass type arguments to `toolCalls` for stricter types.
 *
 * @example
 * const [refund] = run.toolCalls<{ order_id: string; amount: number }>('issue_refund')
 * refund // { name: 'issue_refund', args: { order_id: 'A17', amount: 49 }, result: { ok: true }, isError: false, step: 3, source: 'tool', callId: 'call_2', llmStep: 2 }
 * const [mcp] = run.toolCalls('get_order', { server: 'orders-server' })
 * mcp.server // 'orders-server': an MCP tool
 */
// biome-ignore lint/suspicious/noExplicitAny: oracles read recorded JSON of any shape; `any` keeps `call.args.amount` short
export interface ToolCall<Args = any, Result = any> {
  name: string
  /** The arguments; null when the model wrote arguments that are not JSON (then see `argsText`). */
  args: Args
  /** The model's raw argument text, when it was not JSON. */
  argsText?: string
  /**
   * What the tool returned: the wrapped tool's result as data, or, for a call seen only on the model side,
   * the text the agent sent back in its next request. Absent when the tool threw or was never answered.
   */
  result?: Result
  /**
   * Why the call failed, when it threw or the API flagged it: what the wrapped tool threw, or the error
   * text the agent sent back. A tool that returned an error (`{ error: ... }`) has it in `result`.
   */
  error?: StepError
  /** The call failed (`isFailedToolCall`: it threw, or returned an error), or was blocked instead of run. */
  isError: boolean
  /** The step that ran the tool (`source: 'tool'`), or the LLM step that asked for it (`source: 'model'`). */
  step: number
  /** `tool`: a wrapped tool recorded it; `model`: only the model's response and the agent's reply show it. */
  source: 'tool' | 'model'
  /** The model's tool-call id, when there is one. */
  callId?: string
  /** The LLM step whose response asked for this call, when one did. */
  llmStep?: number
  /** A side-effect tool that was blocked instead of run (during a fork). */
  blocked?: boolean
  /**
   * The MCP server that answered, for an MCP tool (`tools/call`, recorded with `mcp` on its step): its
   * `serverInfo.name`, else the URL's host. Absent for wrapped tools and calls seen only on the model side.
   */
  server?: string
}

interface ModelCall {
  call: ToolCall
  /** Canonical args, to pair a wrapped step that does not know its call id. */
  argsKey: string
  /** A wrapped tool step took this call over: it is not listed on its own. */
  merged: boolean
  /** The result was looked for in a later request: found, or known to be missing there. */
  settled: boolean
}

/**
 * Every tool call of a run, in step order, once each. Two sources are merged: `tool` steps from wrapped
 * tools, and the tool calls in model responses (for agents whose tools are not wrapped), paired with the
 * `tool_result` parts of the following requests. A wrapped step that answers a model call (same call id, or
 * for steps that carry no id, the earliest open call with the same name and arguments) replaces it, because
 * the step holds the real result and error.
 *
 * @example
 * collectToolCalls(run).map((c) => `${c.name}@${c.step}`) // ['get_order@1', 'issue_refund@3']
 */
export function collectToolCalls(run: Run): ToolCall[] {
  const modelCalls: ModelCall[] = []
  // Calls still waiting for their tool_result, by id; Gemini's synthetic ids repeat, so the newest call wins.
  const openById = new Map<string, ModelCall>()
  const calls: ToolCall[] = []

  for (const step of run.steps) {
    if (step.type === 'llm') {
      const messages = step.request.normalized?.messages
      if (messages && openById.size > 0) settleResults(messages, openById)
      for (const part of step.response?.normalized?.toolCalls ?? []) {
        const call: ToolCall = {
          name: part.name,
          args: part.args,
          isError: false,
          step: step.index,
          source: 'model',
          callId: part.id,
          llmStep: step.index,
          ...(part.argsText === undefined ? {} : { argsText: part.argsText }),
        }
        const entry: ModelCall = { call, argsKey: argsKey(part.args), merged: false, settled: false }
        modelCalls.push(entry)
        openById.set(part.id, entry)
      }
    } else if (step.type === 'tool') {
      const blocked = step.blocked === true
      const call: ToolCall = {
        name: step.name,
        args: step.args,
        isError: blocked || isFailedToolCall(step),
        step: step.index,
        source: 'tool',
        ...(step.result === undefined ? {} : { result: step.result }),
        ...(step.error === null ? {} : { error: step.error }),
        ...(step.callId === undefined ? {} : { callId: step.callId }),
        ...(blocked ? { blocked } : {}),
        ...(step.mcp === undefined ? {} : { server: step.mcp.server }),
      }
      const answered = answeredCall(step.callId, step.name, step.args, modelCalls)
      if (answered) {
        answered.merged = true
        call.llmStep = answered.call.llmStep!
        if (call.callId === undefined && answered.call.callId !== undefined)
          call.callId = answered.call.callId
      }
      calls.push(call)
    }
  }
  for (const entry of modelCalls) if (!entry.merged) calls.push(entry.call)
  // Stable: calls of the same step keep the order the model asked for them in.
  return calls.sort((a, b) => a.step - b.step)
}

/** The model call a wrapped tool step answers, if any. */
function answeredCall(
  callId: string | undefined,
  name: string,
  args: JsonValue,
  modelCalls: ModelCall[],
): ModelCall | undefined {
  if (callId !== undefined) {
    // The newest call with this id: Gemini's synthetic ids repeat across turns. Searched in every call, not
    // only open ones, since a request may already have carried the result before the step was logged.
    for (let i = modelCalls.length - 1; i >= 0; i--) {
      const m = modelCalls[i]!
      if (m.call.callId === callId) return !m.merged && m.call.name === name ? m : undefined
    }
    return undefined
  }
  // No id: a wrapper that could not see the model's call id. The same name and arguments, still open, is it.
  const key = argsKey(args)
  return modelCalls.find((m) => !m.merged && m.call.name === name && m.argsKey === key)
}

/**
 * Pairs open model calls with the `tool_result` parts of a request. Read from the newest message back, so
 * that the newest result for an id wins; meeting the call's own echo first means this request holds no
 * result for it (an older result with a reused id belongs to an older call).
 */
function settleResults(messages: Message[], openById: Map<string, ModelCall>): void {
  let unsettled = 0
  for (const entry of openById.values()) if (!entry.settled) unsettled++
  for (let m = messages.length - 1; m >= 0 && unsettled > 0; m--) {
    const parts = messages[m]!.parts
    for (let p = parts.length - 1; p >= 0 && unsettled > 0; p--) {
      const part = parts[p]!
      if (part.type !== 'tool_result' && part.type !== 'tool_call') continue
      const entry = openById.get(part.id)
      if (!entry || entry.settled) continue
      entry.settled = true
      unsettled--
      if (part.type === 'tool_result') applyResult(entry.call, part)
    }
  }
  for (const [id, entry] of openById) if (entry.settled) openById.delete(id)
}

function applyResult(call: ToolCall, part: ToolResultPart): void {
  call.result = part.content
  call.isError = isFailedToolCall({ isError: part.isError, result: part.content })
  if (part.isError) call.error = { name: 'ToolError', message: part.content }
}

function argsKey(args: JsonValue): string {
  try {
    return canonicalStringify(args)
  } catch {
    // A hand-built run may hold what JSON cannot (NaN, a cycle): such a call pairs by id or not at all.
    return `\u0000unpairable:${unpairable++}`
  }
}

let unpairable = 0
