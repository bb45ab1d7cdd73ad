import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import type { HttpStep, LlmStep, Step } from '../../case/schema/step.ts'
import { redactDocument } from '../../redact/redact-document.ts'
import { DivergenceError } from '../divergence-error.ts'
import { matchable } from '../matchable.ts'
import type { Session } from '../session.ts'
import { type HttpShape, httpKey } from './http-key.ts'
import { diffRequests } from './request-diff.ts'
import { requestKey } from './request-key.ts'

/** A live call at replay, as it is matched: its kind, hash, and the redacted request to diff. */
export interface LiveCall {
  kind: 'llm' | 'http'
  /** `openai-chat chat.completions` or `http models.list`, for messages. */
  call: string
  provider: string | undefined
  hash: string
  /** What the call is compared on, redacted like the recording: a model call's normalized request, else its `HttpShape`. */
  matched: NormalizedRequest | HttpShape
}

/** The key of a call under the Session's rules: its hash, and what the hash was taken over. */
interface Keyed {
  hash: string
  matched: NormalizedRequest | HttpShape
}

/**
 * The recorded step that answers a live call of `kind` with `hash`: the first unconsumed one with the
 * same hash, in recorded order. Taking the first unconsumed match (not the next step in line) lets
 * parallel calls, which can arrive in any order, each find their own answer; equal calls are served in
 * recorded order.
 */
export function takeRecordedCall(
  session: Session,
  kind: 'llm' | 'http',
  hash: string,
): LlmStep | HttpStep | undefined {
  const step = session.findUnconsumed((s) => s.type === kind && recordedHash(s, session) === hash)
  if (step) session.consume(step.index)
  return step as LlmStep | HttpStep | undefined
}

/**
 * The recorded step `takeRecordedCall` would serve a live call, without using it: a crash test looks
 * whether the call is the one its fault targets before the step is served.
 */
export function peekRecordedCall(
  session: Session,
  kind: 'llm' | 'http',
  hash: string,
): LlmStep | HttpStep | undefined {
  return session.findUnconsumed((s) => s.type === kind && recordedHash(s, session) === hash) as
    | LlmStep
    | HttpStep
    | undefined
}

function recordedHash(step: Step, session: Session): string | undefined {
  if (step.type === 'llm') {
    // The stored hash was taken under the rules of its day. With matching rules, or when today's
    // redaction rules remove more from the recorded request than they did then (a cassette written
    // before a rule existed), key the recorded request again, once, as the live call is keyed.
    const normalized = step.request.normalized
    if (normalized && (session.matching || redactsMore(session, normalized))) return keyed(session, step).hash
    return step.request.requestHash
  }
  if (step.type === 'http') return keyed(session, step).hash
  return undefined
}

const REDACTS_MORE = new WeakMap<NormalizedRequest, boolean>()

/**
 * Whether the Session's redactor finds something left in a recorded request. The answer is kept per
 * request object; the strings it reads are the ones the live call repeats, so the redactor's own
 * per-string cache makes the walk cheap.
 */
function redactsMore(session: Session, normalized: NormalizedRequest): boolean {
  let more = REDACTS_MORE.get(normalized)
  if (more === undefined) {
    more = redactDocument(normalized, { redactor: session.redactor }).records.length > 0
    REDACTS_MORE.set(normalized, more)
  }
  return more
}

/**
 * The divergence for a call that matched nothing, diffed against the nearest recorded call of the same
 * kind: among the unused ones first (what the agent should have asked next), else among all.
 */
export function callDivergence(session: Session, live: LiveCall): DivergenceError {
  const same = (session.recorded?.steps ?? []).filter(
    (s): s is LlmStep | HttpStep =>
      s.type === live.kind &&
      (s.type !== 'llm' || live.provider === undefined || s.provider === live.provider),
  )
  const unused = new Set(session.unconsumed().map((s) => s.index))
  const pool = same.some((s) => unused.has(s.index)) ? same.filter((s) => unused.has(s.index)) : same
  let nearest: { step: LlmStep | HttpStep; differences: ReturnType<typeof diffRequests> } | undefined
  for (const step of pool) {
    const recorded =
      step.type === 'llm' && !session.matching && step.request.normalized
        ? matchable(step.request.normalized, session.redactor)
        : keyed(session, step).matched
    const differences = diffRequests(recorded, live.matched)
    if (!nearest || differences.length < nearest.differences.length) nearest = { step, differences }
  }
  return new DivergenceError({
    where: session.where,
    stepIndex: session.run.steps.length,
    call: live.call,
    nearestStep: nearest?.step.index ?? null,
    nearestUsed: nearest ? !unused.has(nearest.step.index) : false,
    differences: nearest?.differences ?? [],
    cassettePath: session.cassettePath,
  })
}

const KEYED = new WeakMap<Session, Map<number, Keyed>>()

/**
 * A recorded call keyed under the Session's rules: a model call through `requestKey` (its normalizers
 * and ignored params), any other call through `httpKey`. Cached per Session and step: a replay looks
 * at the unused http steps on every call.
 */
function keyed(session: Session, step: LlmStep | HttpStep): Keyed {
  let cache = KEYED.get(session)
  if (!cache) {
    cache = new Map()
    KEYED.set(session, cache)
  }
  let key = cache.get(step.index)
  if (!key) {
    key =
      step.type === 'llm' && step.request.normalized
        ? requestKey(session, step.request.wire, step.request.normalized)
        : httpKey(step.type === 'llm' ? step.request.wire : step.request, {
            redactor: session.redactor,
            ignoreParams: session.matching?.ignoreParams,
          })
    cache.set(step.index, key)
  }
  return key
}
