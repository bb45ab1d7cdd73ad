import type { NormalizedRequest } from '../../case/schema/normalized.ts'
import { requestHash } from '../../providers/request-hash.ts'
import { matchable } from '../matchable.ts'
import type { Session } from '../session.ts'
import { captureError } from '../values.ts'

/** What a model call is hashed on besides its normalized request. */
export interface KeyedCall {
  method: string
  url: string
  headers: Readonly<Record<string, string>>
}

/**
 * The request hash of a model call under the Session's rules, and the request it was taken over:
 * redacted and made matchable (see `matchable`), then run through the Session's normalizers, hashed
 * without the Session's ignored params. The same function keys a live call and, when the Session has
 * matching rules, a recorded one, so that both sides are seen through the same rules.
 *
 * A normalizer that throws is a capture failure kept on the Session (`finish()` throws it); the call is
 * then keyed without normalizers, so it still fails or matches visibly rather than vanishing.
 */
export function requestKey(
  session: Session,
  call: KeyedCall,
  normalized: NormalizedRequest,
): { hash: string; matched: NormalizedRequest } {
  const matched = normalize(session, matchable(normalized, session.redactor))
  const ignoreParams = session.matching?.ignoreParams
  const hash = requestHash(
    { method: call.method, url: call.url, headers: call.headers, normalized: matched },
    ignoreParams ? { ignoreParams } : undefined,
  )
  return { hash, matched }
}

function normalize(session: Session, request: NormalizedRequest): NormalizedRequest {
  const normalizers = session.matching?.normalize
  if (!normalizers) return request
  let out = request
  for (const fn of normalizers) {
    try {
      out = fn(out) ?? out
    } catch (cause) {
      session.fail(captureError(`the matching normalizer ${fn.name || '(anonymous)'} threw`, cause))
      return request
    }
  }
  return out
}
