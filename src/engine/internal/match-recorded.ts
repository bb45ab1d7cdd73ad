import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import type { HttpStep, LlmStep, Step, WireRequest } from '../../case/schema/step.ts'
import { redactDocument } from '../../redact/redact-document.ts'
import { DivergenceError } from '../divergence-error.ts'
import type { Session } from '../session.ts'
import { matchable } from './matchable.ts'
import { httpHash } from './read-request.ts'
import { diffRequests } from './request-diff.ts'
import { requestKey } from './request-key.ts'

/** A live call at replay, as it is matched: its kind, hash, and the redacted request to diff. */
export interface LiveCall {
  kind: 'llm' | 'http'
  /** `openai-chat chat.completions` or `http models.list`, for messages. */
  call: string
  provider: string | undefined
  hash: string
  wire: WireRequest
  /** Redacted, like the recording it is compared with. */
  normalized: NormalizedRequest | null
}

/**
 * The recorded step that answers `live`: the first unconsumed one with the same hash, in recorded
 * order. Taking the first unconsumed match (not the next step in line) lets parallel calls, which can
 * arrive in any order, each find their own answer; equal calls are served in recorded order.
 */
export function takeRecordedCall(session: Session, live: LiveCall): LlmStep | HttpStep | undefined {
  for (const step of session.unconsumed()) {
    if (step.type !== live.kind) continue
    if (recordedHash(step, session) !== live.hash) continue
    session.consume(step.index)
    return step as LlmStep | HttpStep
  }
  return undefined
}

function recordedHash(step: Step, session: Session): string | undefined {
  if (step.type === 'llm') {
    // With matching rules the stored hash may predate them: key the recorded request again, once.
    if (!session.matching || !step.request.normalized) return step.request.requestHash
    return rekeyed(session, step).hash
  }
  if (step.type === 'http') return httpHash(step.request, session.redactor)
  return undefined
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
    const differences = diffRequests(comparable(step, session), comparableLive(live, session))
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

/** What a recorded call is compared on: the normalized request of a model call, else method, URL and body. */
function comparable(step: LlmStep | HttpStep, session: Session): unknown {
  if (step.type === 'llm' && step.request.normalized) {
    return session.matching
      ? rekeyed(session, step).matched
      : matchable(step.request.normalized, session.redactor)
  }
  const wire = step.type === 'llm' ? step.request.wire : step.request
  return redactDocument(wireShape(wire), { redactor: session.redactor }).value
}

function comparableLive(live: LiveCall, session: Session): unknown {
  // Redacted like the recording: a divergence message must not print a secret the cassette never held.
  return live.normalized ?? redactDocument(wireShape(live.wire), { redactor: session.redactor }).value
}

function wireShape(wire: WireRequest): unknown {
  const url = new URL(wire.url)
  return { method: wire.method, path: url.pathname + url.search, body: wire.body ?? wire.bodyText ?? null }
}

const REKEYED = new WeakMap<Session, Map<number, ReturnType<typeof requestKey>>>()

/** A recorded model call keyed under the Session's matching rules; cached per Session and step. */
function rekeyed(session: Session, step: LlmStep): ReturnType<typeof requestKey> {
  let cache = REKEYED.get(session)
  if (!cache) {
    cache = new Map()
    REKEYED.set(session, cache)
  }
  let key = cache.get(step.index)
  if (!key) {
    key = requestKey(session, step.request.wire, step.request.normalized as NormalizedRequest)
    cache.set(step.index, key)
  }
  return key
}
