import { mcpResultValue } from '../../mcp-steps.ts'
import type { JsonObject, JsonValue } from '../../schema/json.ts'
import type { Usage } from '../../schema/normalized.ts'
import type { Run } from '../../schema/run.ts'
import type { HttpStep, LlmStep, Step, StepError, ToolStep } from '../../schema/step.ts'
import { CRASHLAB_EXTENSION as X } from '../crashlab-extension.ts'
import { type EventLog, isoAfter } from './event-log.ts'

/**
 * How each crashlab step becomes AgentCase events (the tables are in docs/agentcase.md):
 * llm → [retry] model.request, model.response (parent: the request), [exception];
 * tool → tool.call, tool.result (parent: the call; same name and call_id), [exception]; an MCP tool
 *   the same, its `mcp` (server, HTTP exchange) in the call's extension, and a result with `isError`
 *   a `failure` whose error is the tool's text (no exception: the call itself went through);
 * http → custom (`kind: "crashlab.http"`), [exception].
 * Payloads follow the writer contracts; what they cannot carry goes under `extensions["dev.crashlab"]`.
 */

export interface StepContext {
  log: EventLog
  run: Run
  startId: string
  /** Tool-call id → the model.response event that asked for it: a tool call's natural parent. */
  callers: Map<string, string>
  /** The last llm step seen, with its request event and retry count, to detect retries. */
  lastLlm?: { step: LlmStep; requestId: string; attempt: number }
}

/**
 * Appends the events of step `i` of `ctx.run`.
 *
 * @example
 * for (const [i, step] of run.steps.entries()) appendStepEvents(ctx, step, i)
 */
export function appendStepEvents(ctx: StepContext, step: Step, i: number): void {
  if (step.type === 'llm') appendLlm(ctx, step, i)
  else if (step.type === 'tool') appendTool(ctx, step, i)
  else appendHttp(ctx, step, i)
}

function appendLlm(ctx: StepContext, step: LlmStep, i: number): void {
  const { log } = ctx
  const at = `/steps/${i}`
  const start = step.timing.startedAt
  const end = isoAfter(start, step.timing.durationMs)
  let parent = ctx.startId
  let attempt = 0
  const prev = ctx.lastLlm
  // A retry: the same request again right after it failed (SDK retries, the agent's own loop).
  if (prev?.step.error && prev.step.request.requestHash === step.request.requestHash) {
    attempt = prev.attempt + 1
    const prevEnd = Date.parse(prev.step.timing.startedAt) + prev.step.timing.durationMs
    parent = log.add('retry', {
      timestamp: start,
      parent: prev.requestId,
      payload: {
        attempt,
        reason: `${prev.step.error.name}: ${prev.step.error.message}`,
        delay_ms: Math.max(0, Date.parse(start) - prevEnd) || 0,
        target: `${step.provider} ${step.endpoint}`,
      },
      ext: { derived: 'retry' },
    })
  }

  const nreq = step.request.normalized
  const model = nreq?.model ?? wireModel(step.request.wire.body)
  const requestId = log.add('model.request', {
    timestamp: start,
    parent,
    payload: nreq
      ? {
          provider: step.provider,
          model,
          input: { system: nreq.system, messages: nreq.messages },
          parameters: nreq.params as JsonObject,
          tools: nreq.tools,
        }
      : { provider: step.provider, model, input: step.request.wire.body, parameters: {}, tools: [] },
    ext: {
      step: {
        type: 'llm',
        endpoint: step.endpoint,
        timing: step.timing,
        ...(step.cost !== undefined && { cost: step.cost }),
        request: {
          wire: step.request.wire,
          requestHash: step.request.requestHash,
          normalized: nreq !== null,
        },
      },
    },
  })
  const req = log.lastPointer
  log.map(`${at}/request/wire`, `${req}/extensions/${X}/step/request/wire`)
  log.map(`${at}/request/normalized/model`, `${req}/payload/model`)
  log.map(`${at}/request/normalized/system`, `${req}/payload/input/system`)
  log.map(`${at}/request/normalized/messages`, `${req}/payload/input/messages`)
  log.map(`${at}/request/normalized/tools`, `${req}/payload/tools`)
  log.map(`${at}/request/normalized/params`, `${req}/payload/parameters`)
  log.map(at, `${req}/extensions/${X}/step`)
  ctx.lastLlm = { step, requestId, attempt }

  let last = requestId
  const res = step.response
  if (res) {
    const nres = res.normalized
    last = log.add('model.response', {
      timestamp: end,
      parent: requestId,
      capture: res.incomplete ? 'partial' : 'captured',
      payload: {
        provider: step.provider,
        model: nres?.model ?? model,
        output: nres ? { parts: nres.parts, tool_calls: nres.toolCalls } : res.wire.body,
        ...(nres?.finishReason && { finish_reason: nres.finishReason }),
        ...(nres?.usage && { usage: usagePayload(nres.usage) }),
        latency_ms: step.timing.durationMs,
      },
      ext: {
        response: {
          wire: res.wire,
          incomplete: res.incomplete,
          normalized: nres !== null,
          ...(nres && { model: nres.model, requestId: nres.requestId }),
        },
      },
    })
    const r = log.lastPointer
    log.map(`${at}/response/normalized/parts`, `${r}/payload/output/parts`)
    log.map(`${at}/response/normalized/toolCalls`, `${r}/payload/output/tool_calls`)
    log.map(`${at}/response`, `${r}/extensions/${X}/response`)
    for (const call of nres?.toolCalls ?? []) ctx.callers.set(call.id, last)
  }
  if (step.error) appendException(ctx, step.error, { parent: last, at: end, errorOf: i, path: at })
}

function appendTool(ctx: StepContext, step: ToolStep, i: number): void {
  const { log } = ctx
  const at = `/steps/${i}`
  // The contract requires a call_id; a step without one gets a stable stand-in, flagged in the extension.
  const callId = step.callId ?? `crashlab-step-${i}`
  const callEvent = log.add('tool.call', {
    timestamp: step.timing.startedAt,
    parent: (step.callId !== undefined && ctx.callers.get(step.callId)) || ctx.startId,
    payload: { name: step.name, call_id: callId, arguments: step.args },
    ext: {
      step: {
        type: 'tool',
        timing: step.timing,
        sideEffects: step.sideEffects,
        ...(step.blocked !== undefined && { blocked: step.blocked }),
        callId: step.callId !== undefined,
        ...(step.mcp && { mcp: step.mcp }),
      },
    },
  })
  const call = log.lastPointer
  log.map(`${at}/args`, `${call}/payload/arguments`)
  log.map(`${at}/name`, `${call}/payload/name`)
  log.map(`${at}/callId`, `${call}/payload/call_id`)
  log.map(at, `${call}/extensions/${X}/step`)
  const end = isoAfter(step.timing.startedAt, step.timing.durationMs)
  const error = step.error
    ? { type: step.error.name, message: step.error.message }
    : step.mcp?.isError
      ? { type: 'McpToolError', message: mcpErrorText(step.result) }
      : undefined
  const resultEvent = log.add('tool.result', {
    timestamp: end,
    parent: callEvent,
    payload: {
      name: step.name,
      call_id: callId,
      status: error ? 'failure' : 'success',
      ...(step.result !== undefined && { result: step.result }),
      ...(error && { error }),
      latency_ms: step.timing.durationMs,
    },
  })
  log.map(`${at}/result`, `${log.lastPointer}/payload/result`)
  if (step.error) appendException(ctx, step.error, { parent: resultEvent, at: end, errorOf: i, path: at })
}

/** What an MCP tool said of its failure: the text of its result, else the result as JSON. */
function mcpErrorText(result: JsonValue | undefined): string {
  const value = mcpResultValue(result)
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'the MCP tool reported an error')
}

function appendHttp(ctx: StepContext, step: HttpStep, i: number): void {
  const { log } = ctx
  const at = `/steps/${i}`
  const id = log.add('custom', {
    timestamp: step.timing.startedAt,
    parent: ctx.startId,
    payload: {
      kind: 'crashlab.http',
      label: step.label,
      method: step.request.method,
      url: step.request.url,
      status: step.response?.status ?? null,
    },
    ext: { step: { type: 'http', timing: step.timing, request: step.request, response: step.response } },
  })
  log.map(`${at}/label`, `${log.lastPointer}/payload/label`)
  log.map(at, `${log.lastPointer}/extensions/${X}/step`)
  if (step.error) {
    const end = isoAfter(step.timing.startedAt, step.timing.durationMs)
    appendException(ctx, step.error, { parent: id, at: end, errorOf: i, path: at })
  }
}

/**
 * An exception event for a step's or the run's error. `handled` says whether the run went on after it:
 * false for the run's own error and for a step error the run ended on with status `error`.
 *
 * @example
 * appendException(ctx, run.error, { parent: startId, at: run.endedAt, errorOf: 'run', path: '' })
 */
export function appendException(
  ctx: StepContext,
  error: StepError,
  where: { parent: string; at: string; errorOf: number | 'run'; path: string },
): string {
  const { run, log } = ctx
  const handled =
    where.errorOf !== 'run' && !(run.status === 'error' && where.errorOf === run.steps.length - 1)
  const id = log.add('exception', {
    timestamp: where.at,
    parent: where.parent,
    payload: {
      exception_type: error.name,
      message: error.message,
      handled,
      ...(error.code !== undefined && { error_code: error.code }),
      ...(error.status !== undefined && { http_status: error.status }),
    },
    ext: { errorOf: where.errorOf },
  })
  log.map(`${where.path}/error/message`, `${log.lastPointer}/payload/message`)
  log.map(`${where.path}/error`, `${log.lastPointer}/payload`)
  return id
}

/** crashlab's usage in the snake_case most provider APIs and the reference use. */
function usagePayload(u: Usage): JsonObject {
  return {
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    ...(u.cachedTokens !== undefined && { cached_tokens: u.cachedTokens }),
    ...(u.reasoningTokens !== undefined && { reasoning_tokens: u.reasoningTokens }),
  }
}

function wireModel(body: JsonValue | null): string {
  const m = body && typeof body === 'object' && !Array.isArray(body) ? body.model : undefined
  return typeof m === 'string' ? m : 'unknown'
}
