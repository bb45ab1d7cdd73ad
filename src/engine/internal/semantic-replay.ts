import { canonicalStringify } from '../../case/canonical-json.ts'
import type { JsonValue } from '../../case/schema/json.ts'
import type { NormalizedRequest, NormalizedResponse, Part } from '../../case/schema/normalized.ts'
import type { LlmStep, Step, WireRequest, WireResponse } from '../../case/schema/step.ts'
import { CrashlabError } from '../../errors.ts'
import type { ProviderAdapter } from '../../providers/types.ts'
import type { NewStep, Session } from '../session.ts'

/** A live model call matched against an imported run: the step that answers it, or why none does. */
export type SemanticMatch = { step: LlmStep } | { unmatched: Unmatched } | { incomplete: CrashlabError }

/** A live call no unused step answers, with the step it is nearest to and both sides as compared. */
export interface Unmatched {
  step: LlmStep | null
  /** True when the nearest step was already served (the agent asks once more than the run did). */
  used: boolean
  recorded: NormalizedRequest | null
  live: NormalizedRequest
}

/**
 * The unused model step of an imported run that answers a live call: the first, in recorded order, whose
 * span content equals the call's on every field the span holds (see `semanticView`). The next unused
 * model step lacking its content (the trace did not capture it) ends the replay with
 * `E_REPLAY_INCOMPLETE` rather than a divergence: nothing could have matched it.
 */
export function takeSemanticCall(session: Session, call: { matched: NormalizedRequest }): SemanticMatch {
  const live = call.matched
  const next = session.findUnconsumed((s) => s.type === 'llm') as LlmStep | undefined
  if (next && lacksContent(next)) return { incomplete: incompleteError(session, next) }
  const found = session.findUnconsumed((s) => {
    if (s.type !== 'llm' || lacksContent(s)) return false
    const recorded = s.request.normalized!
    return sameView(semanticView(recorded, recorded), semanticView(live, recorded))
  }) as LlmStep | undefined
  if (found) {
    session.consume(found.index)
    return { step: found }
  }
  return { unmatched: nearestOf(session, live) }
}

/**
 * The tool runs the trace recorded before `step`, as the live request shows them: an agent's own tools
 * (not wrapped with crashlab's `tool()`) run again at replay unseen by crashlab, and their results reach
 * the model in the request's tool messages. Each recorded tool step still unused before `step` becomes a
 * tool step of the replay with the live arguments and result (found by call id, else by name in order),
 * so that the replay has the steps of the run it replays and the checks see the same run. A tool the
 * agent did not call again is left unused (a later call may still take it).
 */
export function toolStepsSeen(session: Session, step: LlmStep, live: NormalizedRequest): NewStep[] {
  const calls = new Map<string, { name: string; args: JsonValue }>()
  const results: Array<{ id: string; name?: string; content: string; isError: boolean }> = []
  for (const message of live.messages)
    for (const part of message.parts) {
      if (part.type === 'tool_call') calls.set(part.id, { name: part.name, args: part.args })
      else if (part.type === 'tool_result') results.push(part)
    }
  const taken = new Set<number>()
  const out: NewStep[] = []
  for (const recorded of session.recorded?.steps ?? []) {
    if (recorded.index >= step.index) break
    if (recorded.type !== 'tool' || !session.findUnconsumed((u) => u.index === recorded.index)) continue
    const at = results.findIndex(
      (r, i) =>
        !taken.has(i) &&
        (recorded.callId !== undefined
          ? r.id === recorded.callId
          : (r.name ?? calls.get(r.id)?.name) === recorded.name),
    )
    if (at === -1) continue
    taken.add(at)
    session.consume(recorded.index)
    const result = results[at]!
    const call = calls.get(result.id)
    out.push({
      type: 'tool',
      name: call?.name ?? recorded.name,
      ...(recorded.callId !== undefined && { callId: result.id }),
      args: call?.args ?? recorded.args,
      ...(!result.isError && { result: parsedResult(result.content) }),
      sideEffects: recorded.sideEffects,
      timing: { startedAt: new Date().toISOString(), durationMs: recorded.timing.durationMs },
      error: result.isError ? { name: 'ToolError', message: result.content } : null,
    })
  }
  return out
}

function parsedResult(content: string): JsonValue {
  try {
    return JSON.parse(content) as JsonValue
  } catch {
    return content
  }
}

/** Whether a step can be replayed: a request to match and a response to answer with. */
function lacksContent(step: LlmStep): boolean {
  const response = step.response
  const answered = response?.normalized && !response.incomplete
  const failed = step.error !== null && !response?.normalized
  return step.request.normalized === null || !(answered || failed)
}

/**
 * What a live call is compared on, as far as the recorded span holds it (docs/otel.md, "Replaying an
 * imported run"):
 * - `model`, when the span names one;
 * - the conversation: system text, then each message's role and parts: text (a message's text parts
 *   joined), tool calls by name and arguments, tool results by content (JSON compared canonically),
 *   media by type. Tool-call ids are left out (instrumentations drop or rename them), as are reasoning
 *   parts (providers hand reasoning back in their own ways) and empty text;
 * - tools by name and description, when the span lists tools (their parameter schemas are written
 *   differently by each instrumentation);
 * - `temperature`, `topP`, `maxTokens`, `seed` and `stop`, each when the span has it.
 */
export function semanticView(request: NormalizedRequest, span: NormalizedRequest): NormalizedRequest {
  const system = joinText(request.system)
  const messages = request.messages
    .map((m) => ({ role: m.role, parts: viewParts(m.parts) }))
    .filter((m) => m.parts.length > 0)
  const params: NormalizedRequest['params'] = {}
  for (const key of ['temperature', 'topP', 'maxTokens', 'seed', 'stop'] as const) {
    if (span.params[key] !== undefined) Object.assign(params, { [key]: request.params[key] ?? null })
  }
  return {
    model: span.model ? request.model : '',
    system: system ? [{ type: 'text', text: system }] : [],
    messages,
    tools:
      span.tools.length === 0
        ? []
        : request.tools
            .map((t) => ({
              name: t.name,
              ...(t.description !== undefined && span.tools.some((s) => s.description !== undefined)
                ? { description: t.description }
                : {}),
              parameters: {},
            }))
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    params,
  }
}

function viewParts(parts: readonly Part[]): Part[] {
  const out: Part[] = []
  const text = joinText(parts)
  if (text) out.push({ type: 'text', text })
  for (const p of parts) {
    if (p.type === 'tool_call') out.push({ type: 'tool_call', id: '', name: p.name, args: p.args })
    else if (p.type === 'tool_result')
      out.push({ type: 'tool_result', id: '', content: canonicalText(p.content), isError: p.isError })
    else if (p.type === 'media') out.push({ type: 'media', mediaType: p.mediaType, bytes: null })
  }
  return out
}

function joinText(parts: readonly Part[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('')
    .trim()
}

/** JSON text written canonically (keys sorted, no spaces), so that `{"a": 1}` and `{"a":1}` are one result. */
function canonicalText(text: string): string {
  if (!/^\s*[[{"]/.test(text)) return text.trim()
  try {
    return canonicalStringify(JSON.parse(text))
  } catch {
    return text.trim()
  }
}

function sameView(a: NormalizedRequest, b: NormalizedRequest): boolean {
  return canonicalStringify(a) === canonicalStringify(b)
}

/**
 * What a live call that matched nothing is compared with: the next unused model step of the run (what
 * the agent should have asked next), else the last one (the agent asks once more than it did), each side
 * seen as the span sees it.
 */
function nearestOf(session: Session, live: NormalizedRequest): Unmatched {
  const steps = (session.recorded?.steps ?? []).filter(
    (s): s is LlmStep => s.type === 'llm' && s.request.normalized !== null,
  )
  const next = session.findUnconsumed((s) => s.type === 'llm' && s.request.normalized !== null) as
    | LlmStep
    | undefined
  const step = next ?? steps.at(-1)
  if (!step) return { step: null, used: false, recorded: null, live }
  const span = step.request.normalized!
  return {
    step,
    used: next === undefined,
    recorded: semanticView(span, span),
    live: semanticView(live, span),
  }
}

/**
 * The error for a replay of an imported run that ended with model steps unused, when one of them lacks
 * its content (the agent, given no input the trace held, may never have reached it): `E_REPLAY_INCOMPLETE`
 * naming the first. Undefined when every unused step had its content.
 */
export function unusedIncomplete(session: Session, unused: readonly Step[]): CrashlabError | undefined {
  const step = unused.find((s): s is LlmStep => s.type === 'llm' && lacksContent(s))
  return step && incompleteError(session, step)
}

function incompleteError(session: Session, step: LlmStep): CrashlabError {
  const lacking =
    step.request.normalized === null ? 'its messages (the request)' : 'its answer (the response)'
  return new CrashlabError(
    'E_REPLAY_INCOMPLETE',
    `replay of ${session.where} reached step ${step.index} of the imported run, whose trace did not ` +
      `capture ${lacking}: a model call there cannot be matched or answered. Content capture is opt-in ` +
      "in most instrumentations (the GenAI conventions' `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, " +
      "the AI SDK's `recordInputs`/`recordOutputs`): import a trace taken with it on, or record the run with crashlab.",
    { subject: session.cassettePath },
  )
}

/**
 * The answer to a live call from an imported step, written by the live call's own adapter: the same
 * response as that API sends it, plain or streamed as the request asked. A failed call is answered
 * with its status (500 when the span gave none) and the span's error message.
 */
export function writeSemanticResponse(
  adapter: ProviderAdapter,
  wire: WireRequest,
  request: NormalizedRequest,
  step: LlmStep,
): WireResponse {
  const response: NormalizedResponse | null | undefined = step.response?.normalized
  if (!response) {
    const error = step.error ?? { name: 'Error', message: 'the model call failed' }
    return {
      status: error.status ?? 500,
      headers: { 'content-type': 'application/json' },
      body: { error: { message: error.message, type: error.name } },
    }
  }
  const options = { ...(response.requestId && { id: response.requestId }), request }
  if (adapter.isStreaming(wire)) {
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: null,
      chunks: adapter.writeStream(response, options),
    }
  }
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: adapter.writeResponse(response, options),
  }
}
