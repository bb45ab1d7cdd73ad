import { canonicalStringify } from '../../canonical-json.ts'
import type { JsonObject, JsonValue } from '../../schema/json.ts'
import { NormalizedRequestSchema, NormalizedResponseSchema } from '../../schema/normalized.ts'
import type { RedactionInfo, Run } from '../../schema/run.ts'
import type { LlmStep, Step, StepError, ToolStep, WireRequest, WireResponse } from '../../schema/step.ts'
import type { AgentCase, AgentCaseEvent } from '../schema.ts'
import { deriveRunId, sha256Hex } from './derive-ids.ts'
import { fromAgentCaseOutcome } from './outcome-mapping.ts'
import { asObject, asString, errorFromException, usageFromPayload } from './payload-readers.ts'

/**
 * A case written by another tool (the reference, or crashlab with its extension stripped) has no
 * crashlab data, so the run is rebuilt from what AgentCase says: a model.request and its response make
 * an llm step (the payloads become the wire bodies), a tool.call and its result a tool step, and an
 * exception is the error of the step it hangs under (else of the run). Nothing else has a crashlab step;
 * such events are listed under `metadata.agentcaseImport.skippedEvents`, with the other notes.
 */

/**
 * Builds a sensible, valid run from a foreign case. Not lossless.
 *
 * @example
 * importForeignCase(parseAgentCase(readFileSync('valid_minimal.agentcase')))
 */
export function importForeignCase(c: AgentCase): Run {
  const ev = c.events
  const childOf = (e: AgentCaseEvent, type: string) => {
    const id = e.event_id.toLowerCase()
    return ev.find((x) => x.event_type === type && x.parent_event_id?.toLowerCase() === id)
  }
  const steps: Step[] = []
  const stepOfEvent = new Map<string, number>()
  const own = (e: AgentCaseEvent | undefined, i: number) => e && stepOfEvent.set(e.event_id.toLowerCase(), i)
  // Where each AgentCase location went in the run, so that redaction records still point at their value.
  const moved: Array<[string, string]> = [['/metadata/user_metadata', '/metadata']]
  const move = (e: AgentCaseEvent | undefined, from: string, to: string) =>
    e && moved.push([`/events/${e.sequence}/payload${from}`, to])
  const skipped: Array<{ sequence: number; eventType: string }> = []
  const exceptions: AgentCaseEvent[] = []
  for (const e of ev) {
    if (stepOfEvent.has(e.event_id.toLowerCase())) continue
    const i = steps.length
    if (e.event_type === 'model.request') {
      const res = childOf(e, 'model.response')
      steps.push(llmStep(e, res, i, c))
      own(e, i)
      own(res, i)
      move(e, '', `/steps/${i}/request/wire/body`)
      move(res, '', `/steps/${i}/response/wire/body`)
    } else if (e.event_type === 'tool.call') {
      const res = childOf(e, 'tool.result')
      steps.push(toolStep(e, res, i))
      own(e, i)
      own(res, i)
      move(e, '/arguments', `/steps/${i}/args`)
      move(res, '/result', `/steps/${i}/result`)
    } else if (e.event_type === 'exception') exceptions.push(e)
    else if (e.event_type !== 'execution.start' && e.event_type !== 'execution.end') {
      skipped.push({ sequence: e.sequence, eventType: e.event_type })
    }
  }

  // An exception belongs to the first step found up its parent chain; one under no step is the run's.
  const byId = new Map(ev.map((x) => [x.event_id.toLowerCase(), x]))
  let runError: StepError | null = null
  for (const x of exceptions) {
    const error = errorFromException(x.payload)
    let owner: number | undefined
    for (
      let p = x.parent_event_id;
      p && owner === undefined;
      p = byId.get(p.toLowerCase())?.parent_event_id ?? null
    ) {
      owner = stepOfEvent.get(p.toLowerCase())
    }
    if (owner !== undefined) steps[owner]!.error = error
    if (owner === undefined || x.payload.handled === false) runError = error
  }

  const start = ev.find((e) => e.event_type === 'execution.start')
  const end = ev.findLast((e) => e.event_type === 'execution.end')
  move(start, '/input', '/input')
  move(end, '/output', '/output')
  const { status, outcome, error } = fromAgentCaseOutcome(c.outcome, runError, end !== undefined)
  const startedAt = start?.timestamp ?? ev[0]?.timestamp ?? c.created_at
  const tokens = steps.map((s) => (s.type === 'llm' ? s.response?.normalized?.usage : null))
  const sum = (k: 'inputTokens' | 'outputTokens' | 'cachedTokens' | 'reasoningTokens') =>
    tokens.reduce((n, u) => n + (typeof u?.[k] === 'number' ? u[k] : 0), 0)
  const notes = [
    'imported from an AgentCase without crashlab data: wire fields hold the AgentCase payloads',
    'tool side effects are unknown: every tool step is marked sideEffects: true',
    ...(c.replay ? [`replay of case ${c.replay.source_case_id} (${c.replay.mode})`] : []),
  ]
  return {
    id: deriveRunId(c.case_id, Date.parse(startedAt)),
    name: asString(
      start?.payload.name,
      asString(start?.payload.entrypoint, c.metadata.integration?.integration_id ?? 'agentcase'),
    ),
    tags: [],
    status,
    outcome,
    completeness: c.completeness,
    input: start?.payload.input ?? null,
    output: end?.payload.output ?? null,
    error,
    entryPoint: null,
    startedAt,
    endedAt: end?.timestamp ?? null,
    usage: {
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens'),
      cachedTokens: sum('cachedTokens'),
      reasoningTokens: sum('reasoningTokens'),
      llmCalls: steps.filter((s) => s.type === 'llm').length,
      toolCalls: steps.filter((s) => s.type === 'tool').length,
    },
    cost: null,
    gitSha: null,
    links: {},
    steps,
    checks: [],
    findings: [],
    diagnosis: null,
    fixes: [],
    redaction: redactionOf(c, moved),
    metadata: {
      ...c.metadata.user_metadata,
      agentcaseImport: {
        caseId: c.case_id,
        executionId: c.execution_id,
        outcome: c.outcome,
        skippedEvents: skipped,
        notes,
      },
    },
  }
}

function llmStep(req: AgentCaseEvent, res: AgentCaseEvent | undefined, index: number, c: AgentCase): LlmStep {
  const p = req.payload
  const input = asObject(p.input)
  // A payload in crashlab's own shape (an export whose extension was dropped) still gives a normalized request.
  const normalized = NormalizedRequestSchema.safeParse({
    model: p.model,
    system: input.system,
    messages: input.messages,
    tools: p.tools,
    params: p.parameters,
  })
  const wire: WireRequest = { method: 'POST', url: '', headers: {}, body: p }
  const started = Date.parse(req.timestamp)
  const latency = res?.payload.latency_ms
  const durationMs =
    typeof latency === 'number' && latency >= 0
      ? latency
      : res
        ? Math.max(0, Date.parse(res.timestamp) - started) || 0
        : 0
  return {
    index,
    timing: { startedAt: req.timestamp, durationMs },
    error: null,
    type: 'llm',
    provider: asString(p.provider, c.metadata.provider?.provider_id ?? 'unknown'),
    endpoint: 'agentcase',
    request: {
      wire,
      normalized: normalized.success ? normalized.data : null,
      requestHash: sha256Hex(canonicalStringify(p)),
    },
    response: res ? response(res) : null,
  }
}

function response(res: AgentCaseEvent): NonNullable<LlmStep['response']> {
  const rp = res.payload
  const output = asObject(rp.output)
  const normalized = NormalizedResponseSchema.safeParse({
    model: typeof rp.model === 'string' ? rp.model : null,
    requestId: null,
    parts: output.parts,
    toolCalls: output.tool_calls,
    finishReason: rp.finish_reason ?? null,
    usage: usageFromPayload(rp.usage),
  })
  const wire: WireResponse = { status: 200, headers: {}, body: rp }
  return {
    wire,
    normalized: normalized.success ? normalized.data : null,
    incomplete: res.capture_status !== 'captured',
  }
}

function toolStep(call: AgentCaseEvent, res: AgentCaseEvent | undefined, index: number): ToolStep {
  const p = call.payload
  const rp: JsonObject = res?.payload ?? {}
  const failed = rp.status === 'failure'
  const err = asObject(rp.error)
  const started = Date.parse(call.timestamp)
  const latency = rp.latency_ms
  const callId = p.call_id
  return {
    index,
    timing: {
      startedAt: call.timestamp,
      durationMs:
        typeof latency === 'number' && latency >= 0
          ? latency
          : res
            ? Math.max(0, Date.parse(res.timestamp) - started) || 0
            : 0,
    },
    error: failed
      ? {
          name: asString(err.type, asString(rp.error_class, 'ToolError')),
          message: asString(err.message, typeof rp.error === 'string' ? rp.error : 'the tool failed'),
        }
      : null,
    type: 'tool',
    // The reference's own fixture says `tool_name`; the contract says `name`.
    name: asString(p.name, asString(p.tool_name, 'unknown')),
    ...(typeof callId === 'string' && { callId }),
    args: (p.arguments ?? null) as JsonValue,
    ...(rp.result !== undefined && { result: rp.result }),
    // Unknown side effects count as side effects: a fork then never runs this tool live.
    sideEffects: true,
  }
}

function redactionOf(c: AgentCase, moved: ReadonlyArray<[string, string]>): RedactionInfo {
  const s = c.redaction.status
  const translate = (path: string) => {
    const hit = moved.find(([from]) => path === from || path.startsWith(`${from}/`))
    return hit ? hit[1] + path.slice(hit[0].length) : path
  }
  return {
    // crashlab has no "unknown": anything not known to be fully redacted counts as partial.
    status: s === 'unknown' ? 'partial' : s,
    records: c.redaction.records.map((r) => ({ path: translate(r.field_path), rule: r.rule_id })),
  }
}
