import type { NormalizedRequest, NormalizedResponse } from '../case/schema/normalized.ts'
import type { LlmStep, StepError, WireRequest, WireResponse } from '../case/schema/step.ts'
import { classifyRequest } from '../providers/registry.ts'
import type { ProviderAdapter } from '../providers/types.ts'
import { DivergenceError } from './divergence-error.ts'
import { type HttpShape, httpKey } from './internal/http-key.ts'
import { callDivergence, peekRecordedCall, takeRecordedCall } from './internal/match-recorded.ts'
import { type ExchangeRequest, toRequest } from './internal/plain-request.ts'
import { type ReadRequest, readRequest, storedUrl } from './internal/read-request.ts'
import { diffRequests } from './internal/request-diff.ts'
import { requestKey } from './internal/request-key.ts'
import { isSemanticRun } from './internal/semantic-run.ts'
import { refusalResponse } from './refusal-response.ts'
import type { Session } from './session.ts'
import { keptHeaders, recordResponse, type StreamEnd } from './streams/record-response.ts'
import { networkError, replayNetworkError, replayResponse } from './streams/replay-response.ts'
import type { ExchangeContext, RequestDecision } from './types.ts'
import { captureError, toStepError } from './values.ts'

/**
 * Sends a request to the real provider: the original fetch, or MSW's `fetch(bypass(req))`.
 *
 * @example
 * const upstream: Upstream = (req) => fetch(bypass(req))
 */
export type Upstream = (request: Request) => Promise<Response>

/**
 * One HTTP exchange of an agent run, recorded or replayed: the one function both interception paths
 * call (`wrap(client)`'s session-bound fetch now, an MSW handler later).
 *
 * - `record`: sends the request upstream with `accept-encoding: identity`, hands the response to the
 *   caller unchanged (a stream chunk for chunk) and appends an `llm` or `http` step when it ends;
 * - `replay`: never calls `upstream`; serves the first unused recorded call with the same request hash,
 *   or keeps a `DivergenceError` on the Session and answers the call with a refusal response;
 * - `passthrough`: just calls `upstream`.
 *
 * `request` is a fetch `Request` (MSW's) or a `PlainRequest` (`sessionFetch`'s, which skips building a
 * `Request` a replay never sends); `upstream` is always handed a real `Request`.
 *
 * The host plays no part: the adapter comes from the request's method and path (`classifyRequest`),
 * and the request hash leaves the origin out, so a call recorded against `127.0.0.1:PORT1` replays
 * against `127.0.0.1:PORT2`.
 *
 * A call crashlab refuses in a way that ends the run (a divergence, any call once the Session is halted)
 * resolves with `refusalResponse(error)`: an HTTP 400 that no SDK retries, while the Session keeps the
 * error for `finish()`. It rejects like fetch rejects, with a `TypeError('fetch failed')`, for a network
 * error (a recorded one, a blocked call, the upstream connection). An MSW handler turns a rejection
 * into `Response.error()`.
 *
 * @example
 * const fetchInSession: typeof fetch = (input, init) =>
 *   handleExchange(session, new Request(input, init), (req) => fetch(req))
 */
export async function handleExchange(
  session: Session,
  request: ExchangeRequest,
  upstream: Upstream,
): Promise<Response> {
  if (session.mode === 'passthrough') return upstream(toRequest(request))
  // A halted run makes no more calls: each is refused as a divergence is, and reaches nothing.
  if (session.halted) return refusalResponse(session.halted)
  // A fork goes live at its fork step: from there the Session records.
  session.forkIfDue()
  const t0 = performance.now()
  const startedAt = new Date().toISOString()
  // Awaited only when it is a promise (a Request's body stream): a replayed call then waits on
  // nothing, and each promise saved also saves the AsyncLocalStorage hook it pays.
  const reading = readRequest(request, session.redactor)
  const read: ReadRequest = reading instanceof Promise ? await reading : reading
  const ctx = classify(session, read.wire)
  let url = request.url
  /** The body sent upstream when a hook rewrote it; else the body as read. */
  let rewritten: Uint8Array | undefined

  let decision: RequestDecision | undefined
  const onRequest = session.hooks.onRequest
  if (onRequest) {
    try {
      decision = await onRequest(ctx)
    } catch (error) {
      addStep(session, ctx, hashOf(session, ctx).hash, startedAt, t0, null, null, toStepError(error))
      throw error
    }
    // Halted while the hook decided (by a parallel call's step): this call stops too.
    if (session.halted) return refusalResponse(session.halted)
  }
  if (decision && 'rewrite' in decision && ctx.adapter) {
    // The adapter writes the new body (and, for Gemini, the URL) from the real request, so that an API
    // key in the URL survives; the stored copy keeps it out.
    const target = decision.baseUrl ? rebase(request.url, decision.baseUrl) : request.url
    const written = ctx.adapter.writeRequest(decision.rewrite, { ...ctx.wire, url: target })
    url = written.url
    rewritten = new TextEncoder().encode(JSON.stringify(written.body))
    ctx.wire = { ...written, url: storedUrl(written.url), headers: ctx.wire.headers }
    ctx.normalized = decision.rewrite
  }
  const { hash, matched } = hashOf(session, ctx)
  if (decision && 'block' in decision) {
    addStep(session, ctx, hash, startedAt, t0, null, null, {
      name: 'BlockedRequest',
      message: decision.block,
    })
    throw networkError(new Error(`[crashlab] request blocked: ${decision.block}`))
  }

  const recording: Recording = {
    complete: (response, end) => addStep(session, ctx, hash, startedAt, t0, response, end, null),
    failed: (error) => addStep(session, ctx, hash, startedAt, t0, null, null, toStepError(error)),
  }
  if (decision && 'respond' in decision) return answer(session, ctx, decision.respond, t0, recording)

  // At replay every call is keyed, so `matched` is set. A replay that records from its first divergence
  // on (`onDivergence: 'record'`) gets no answer for that call: it goes live below.
  if (session.mode === 'replay') {
    // A crash test's fault, in place of the recorded answer of the step this call would take.
    const target = session.inject?.call && peekRecordedCall(session, ctx.kind, hash)
    const injection = target && session.takeInjection(target.index)
    if (target && injection?.call) {
      const fault = injection.call(ctx, target)
      if ('response' in fault) return answer(session, ctx, fault.response, t0, recording)
      recording.failed(fault.reject)
      throw fault.reject
    }
    // A run imported from a trace is matched on what its spans held (loaded on first use).
    const replayed =
      ctx.adapter && ctx.normalized && isSemanticRun(session.recorded)
        ? await replaySemantic(
            session,
            { ...ctx, adapter: ctx.adapter, normalized: ctx.normalized },
            hash,
            matched as NormalizedRequest,
            request.url,
            startedAt,
            t0,
          )
        : replay(session, ctx, hash, matched!, request.url, startedAt, t0)
    if (replayed) return replayed
  }

  const headers = new Headers(request.headers)
  headers.set('accept-encoding', 'identity')
  headers.delete('content-length')
  const init: RequestInit = { method: request.method, headers, signal: request.signal }
  const bytes = rewritten ?? read.bytes
  if (bytes) init.body = bytes
  let res: Response
  try {
    res = await upstream(new Request(url, init))
  } catch (error) {
    recording.failed(error)
    throw error
  }
  return answer(session, ctx, res, t0, recording)
}

/** The URL with its origin replaced by `baseUrl` (whose own path, if any, goes before the URL's path). */
function rebase(url: string, baseUrl: string): string {
  const u = new URL(url)
  return `${baseUrl.replace(/\/+$/, '')}${u.pathname}${u.search}`
}

/** How an exchange's step is completed: with what was received, or with the error that cut it. */
interface Recording {
  complete: (response: WireResponse, end: StreamEnd) => void
  failed: (error: unknown) => void
}

async function answer(
  session: Session,
  ctx: ExchangeContext,
  res: Response,
  t0: number,
  recording: Recording,
): Promise<Response> {
  notifyResponse(session, ctx, res.status, keptHeaders(res))
  try {
    return await recordResponse(session, res, t0, recording.complete)
  } catch (error) {
    // Only a plain body read can fail here (the connection dropped mid-body): the caller would have
    // met the same error reading it, and the step records it.
    recording.failed(error)
    throw error
  }
}

function replay(
  session: Session,
  ctx: ExchangeContext,
  hash: string,
  matched: NormalizedRequest | HttpShape,
  url: string,
  startedAt: string,
  t0: number,
): Response | undefined {
  const recorded = takeRecordedCall(session, ctx.kind, hash)
  if (!recorded) {
    const divergence = callDivergence(session, {
      kind: ctx.kind,
      call: ctx.adapter ? `${ctx.adapter.id} ${ctx.adapter.endpoint}` : `http ${ctx.label}`,
      provider: ctx.adapter?.id,
      hash,
      matched,
    })
    if (session.recordFrom(divergence)) return undefined
    session.fail(divergence)
    // Neither a network error nor a 5xx, which SDKs retry with backoff (the test would end as a timeout
    // that hides the cause): a refusal no SDK retries. The Session throws the divergence itself when
    // the run ends, even if the agent turned the failed call into an answer.
    return refusalResponse(divergence)
  }
  let response: WireResponse | null
  let incomplete = false
  if (session.onDivergence === 'record') {
    // The run keeps the recording up to its first divergence: the recorded step itself (its request as
    // stored, its timing), so that a cassette written again holds it byte for byte.
    session.addStep({ ...recorded })
    response = recorded.type === 'llm' ? (recorded.response?.wire ?? null) : recorded.response
    incomplete = recorded.type === 'llm' && (recorded.response?.incomplete ?? false)
  } else if (recorded.type === 'llm') {
    const answer = recorded.response
    response = answer?.wire ?? null
    incomplete = answer?.incomplete ?? false
    // The recorded step already holds its normalized response: the replayed step takes it rather than
    // reading the same wire response again (read again only when the recording could not read it).
    const known = answer?.normalized ? { normalized: answer.normalized, incomplete } : undefined
    addReplayedStep(
      session,
      ctx,
      { hash, startedAt, t0 },
      recorded,
      response,
      incomplete ? 'error' : null,
      known,
    )
  } else {
    response = recorded.response
    addStep(session, ctx, hash, startedAt, t0, response, null, recorded.error, recorded.timing.durationMs)
  }
  if (!response) throw replayNetworkError(recorded.error ?? { name: 'TypeError', message: 'fetch failed' })
  notifyResponse(session, ctx, response.status, response.headers)
  return replayResponse(response, { incomplete, timing: session.replayTiming, url })
}

/**
 * A model call replayed against a run imported from a trace: matched on what the spans held, answered
 * by the live call's adapter writing the recorded response (see `semantic-replay.ts`).
 */
async function replaySemantic(
  session: Session,
  ctx: ExchangeContext & { adapter: ProviderAdapter; normalized: NormalizedRequest },
  hash: string,
  /** The live request as it is matched: redacted and made matchable (`requestKey`). */
  matched: NormalizedRequest,
  url: string,
  startedAt: string,
  t0: number,
): Promise<Response | undefined> {
  const { takeSemanticCall, toolStepsSeen, writeSemanticResponse } = await import(
    './internal/semantic-replay.ts'
  )
  const match = takeSemanticCall(session, { matched })
  if ('incomplete' in match) {
    session.halt(match.incomplete)
    return refusalResponse(match.incomplete)
  }
  if ('unmatched' in match) {
    const { step, used, recorded, live } = match.unmatched
    const divergence = new DivergenceError({
      where: session.where,
      // The replay has the run's tool steps only once the next call matches: the call stands where the
      // step it missed does.
      stepIndex: step && !used ? step.index : session.run.steps.length,
      call: `${ctx.adapter.id} ${ctx.adapter.endpoint}`,
      nearestStep: step?.index ?? null,
      nearestUsed: used,
      differences: recorded ? diffRequests(recorded, live) : [],
      cassettePath: session.cassettePath,
      whenIntended:
        'import a trace of the agent as it is now, or record it with crashlab (`npx crashlab vitest --record` for a test)',
    })
    if (session.recordFrom(divergence)) return undefined
    session.fail(divergence)
    return refusalResponse(divergence)
  }
  const recorded = match.step
  for (const step of toolStepsSeen(session, recorded, ctx.normalized)) session.addStep(step)
  const response = writeSemanticResponse(ctx.adapter, ctx.wire, ctx.normalized, recorded)
  const known = recorded.response?.normalized
    ? { normalized: recorded.response.normalized, incomplete: false }
    : undefined
  addReplayedStep(session, ctx, { hash, startedAt, t0 }, recorded, response, null, known)
  notifyResponse(session, ctx, response.status, response.headers)
  return replayResponse(response, { incomplete: false, timing: false, url })
}

/** The step of a replayed model call: its recorded error and duration, and its normalized response as recorded. */
function addReplayedStep(
  session: Session,
  ctx: ExchangeContext,
  call: { hash: string; startedAt: string; t0: number },
  recorded: LlmStep,
  response: WireResponse | null,
  end: StreamEnd,
  known: { normalized: NormalizedResponse; incomplete: boolean } | undefined,
): void {
  const { hash, startedAt, t0 } = call
  addStep(session, ctx, hash, startedAt, t0, response, end, recorded.error, recorded.timing.durationMs, known)
}

function classify(session: Session, wire: WireRequest): ExchangeContext {
  const kind = classifyRequest(wire)
  if (kind.kind === 'http') {
    return { session, kind: 'http', adapter: undefined, label: kind.label, wire, normalized: null }
  }
  try {
    const normalized = kind.adapter.normalizeRequest(wire)
    return { session, kind: 'llm', adapter: kind.adapter, label: undefined, wire, normalized }
  } catch (cause) {
    // A model call the adapter cannot read is still recorded and replayed, as an http call.
    session.fail(captureError(`could not read a ${kind.adapter.id} request to ${wire.url}`, cause))
    return { session, kind: 'http', adapter: undefined, label: kind.adapter.endpoint, wire, normalized: null }
  }
}

/**
 * The request hash, over the matchable (redacted, normalized) request: a secret in a prompt never breaks
 * matching, and the Session's matching rules apply. The matchable request comes back too, so that a
 * replay redacts once per call, not once per use. An http call is keyed only where it is matched (a
 * replay): its step stores no hash.
 */
function hashOf(
  session: Session,
  ctx: ExchangeContext,
): { hash: string; matched: NormalizedRequest | HttpShape | null } {
  if (ctx.kind === 'llm' && ctx.normalized) return requestKey(session, ctx.wire, ctx.normalized)
  if (session.mode !== 'replay') return { hash: '', matched: null }
  return httpKey(ctx.wire, { redactor: session.redactor, ignoreParams: session.matching?.ignoreParams })
}

function notifyResponse(
  session: Session,
  ctx: ExchangeContext,
  status: number,
  headers: Record<string, string>,
) {
  const onResponse = session.hooks.onResponse
  if (!onResponse) return
  try {
    onResponse({ ...ctx, status, headers })
  } catch (cause) {
    session.fail(captureError('the onResponse hook threw', cause))
  }
}

function addStep(
  session: Session,
  ctx: ExchangeContext,
  hash: string,
  startedAt: string,
  t0: number,
  response: WireResponse | null,
  end: StreamEnd,
  error: StepError | null,
  durationMs = Math.round(performance.now() - t0),
  /** A replayed model call's normalized response, as recorded. */
  known?: { normalized: NormalizedResponse; incomplete: boolean },
): void {
  const timing = { startedAt, durationMs }
  const stepError = error ?? (response && response.status >= 400 ? providerError(response) : null)
  if (ctx.kind === 'http' || !ctx.adapter) {
    session.addStep({
      type: 'http',
      label: ctx.label ?? 'unknown',
      timing,
      error: stepError,
      request: ctx.wire,
      response,
    })
    return
  }
  session.addStep({
    type: 'llm',
    provider: ctx.adapter.id,
    endpoint: ctx.adapter.endpoint,
    timing,
    error: stepError,
    request: { wire: ctx.wire, normalized: ctx.normalized as NormalizedRequest, requestHash: hash },
    response: response && { wire: response, ...(known ?? readResponse(session, ctx.adapter, response, end)) },
  })
}

function readResponse(session: Session, adapter: ProviderAdapter, wire: WireResponse, end: StreamEnd) {
  const incomplete = end === 'error'
  try {
    if (wire.chunks && wire.status < 400) {
      // A cancel after the terminal event (SDKs do that) leaves a complete stream: what arrived decides.
      const assembled = adapter.assembleStream(wire.chunks)
      // The adapter's reading of the whole response takes the request id from the headers (as for a
      // plain call), which the chunks alone do not carry.
      const normalized = adapter.normalizeResponse(wire) ?? assembled.response
      return { normalized, incomplete: incomplete || assembled.incomplete }
    }
    return { normalized: adapter.normalizeResponse(wire), incomplete }
  } catch (cause) {
    session.fail(captureError(`could not read a ${adapter.id} response`, cause))
    return { normalized: null, incomplete }
  }
}

/** A provider's error answer as the step's error: its status, and its own message when it has one. */
function providerError(response: WireResponse): StepError {
  const body = response.body as {
    error?: { message?: unknown; type?: unknown } | string
    message?: unknown
  } | null
  const inner = typeof body?.error === 'object' ? body.error : undefined
  const message = typeof inner?.message === 'string' ? inner.message : `HTTP ${response.status}`
  return { name: 'ProviderError', message, status: response.status }
}
