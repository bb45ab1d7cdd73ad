import { currentSession } from '../engine/context.ts'
import type { Session } from '../engine/session.ts'
import { RERECORD_COMMAND } from '../engine/values.ts'
import { CrashlabError } from '../errors.ts'
import type { ProviderAdapter } from '../providers/types.ts'
import { type HostMatcher, hostMatcher } from './host-matcher.ts'
import { hostEntry } from './internal/host-entry.ts'
import { isLoopbackHost } from './internal/loopback.ts'
import { modelShaped, readModelShaped } from './internal/model-shaped.ts'
import { networkLedger } from './network-ledger.ts'

/**
 * What a replay may reach besides its cassette. The same options on the interceptor, the socket guard
 * and every replay path (a test in replay mode, `crashlab replay`, a fork's replayed prefix).
 *
 * @example
 * const options: ReplayNetworkOptions = { allowHosts: ['db:5432'], outsideSession: 'replay' }
 */
export interface ReplayNetworkOptions {
  /**
   * Hosts a replay may reach with requests that are not model calls (a database or service container):
   * host names (any port), `host:port` or base URLs, as `hosts` takes them. Default: none.
   */
  allowHosts?: readonly string[]
  /** `passthrough` lets a replay reach every host with requests that are not model calls. */
  otherHosts?: 'error' | 'passthrough'
  /**
   * What requests made outside any Session get (a trace exporter's timer, a module-level client, an
   * `afterAll`): `replay` puts them under the replay rule (the Vitest plugin in replay mode,
   * `crashlab replay`), `passthrough` leaves them alone. Default `passthrough`.
   */
  outsideSession?: 'replay' | 'passthrough'
}

/**
 * Where a replay's request or connection goes: `send` for a loopback host or an allowed one, else why
 * not (a model call outside the cassette, on any host; any other request to a remote host).
 *
 * @example
 * const verdict: ReplayVerdict = { send: false, why: 'remote' }
 */
export type ReplayVerdict =
  | { send: true; why: 'loopback' | 'allowed' }
  | { send: false; why: 'model'; adapter: ProviderAdapter }
  | { send: false; why: 'remote' }

/** A request (method known) or a connection (method unknown) about to leave. */
interface Outbound {
  url: URL
  method?: string
}

/**
 * The one rule of every replay, for what its cassette does not answer: a model call (by method, path
 * and body, see `modelShaped`; at the socket by method and path) is refused on any host; any other request or connection passes to a
 * loopback host or an `allowHosts` host, and is refused elsewhere. A request the cassette holds never
 * gets here: the interceptor serves it first. The HTTP interception and the socket guard both decide
 * through one `ReplayRule`, and count what they let out and keep in (see `networkLedger`).
 *
 * @example
 * const rule = replayRule({ allowHosts: ['db:5432'], outsideSession: 'replay' })
 * const scope = rule.scope()
 * if (scope) {
 *   const verdict = rule.judge({ url: new URL('http://db:5432/'), method: 'GET' })
 *   if (!verdict.send) rule.refuse(rule.refusal(verdict, scope, { url, method: 'GET' }), scope)
 * }
 */
export interface ReplayRule {
  /**
   * Whether the code running now is under the rule: in a replay Session (its Session given back) or,
   * with `outsideSession: 'replay'`, outside any Session. Undefined when it is live (a record or
   * passthrough Session: a fork once live, a verify trial, a `live()` test), which keeps its network.
   */
  scope(): { session: Session | undefined } | undefined
  /** The verdict on a request or connection whose body is not known (method and path decide). */
  judge(outbound: Outbound): ReplayVerdict
  /** The verdict on a fetch `Request`: its body decides whether it is a model call (`readModelShaped`). */
  judgeRequest(request: Request, url: URL): Promise<ReplayVerdict>
  /** The error that says what was refused, where, and how to let it through. */
  refusal(
    verdict: ReplayVerdict & { send: false },
    scope: { session?: Session },
    outbound: Outbound,
  ): CrashlabError
  /** Counts a refusal; keeps it on the Session (which `finish()` throws), or warns once outside one. */
  refuse(error: CrashlabError, scope: { session?: Session }, counted: string): void
  /** Counts what a replay let out. */
  sent(kind: 'requests' | 'connections', counted: string): void
}

/**
 * Builds the rule from the options.
 *
 * @example
 * const rule = replayRule({ allowHosts: ['127.0.0.2'] })
 */
export function replayRule(options: ReplayNetworkOptions = {}): ReplayRule {
  const allow: HostMatcher =
    options.otherHosts === 'passthrough' ? () => true : hostMatcher(options.allowHosts ?? [])
  const outside = options.outsideSession === 'replay'
  return {
    scope() {
      const session = currentSession()
      if (session) return session.mode === 'replay' ? { session } : undefined
      return outside ? { session: undefined } : undefined
    },
    judge({ url, method }) {
      return verdict(url, method ? modelShaped({ method, url }) : undefined, allow)
    },
    async judgeRequest(request, url) {
      return verdict(url, await readModelShaped(request), allow)
    },
    refusal: refusalError,
    refuse(error, scope, counted) {
      networkLedger().refused.push(counted)
      if (scope.session) scope.session.fail(error)
      else warnOnce(error.message)
    },
    sent(kind, counted) {
      networkLedger()[kind].push(counted)
    },
  }
}

function verdict(url: URL, adapter: ProviderAdapter | undefined, allow: HostMatcher): ReplayVerdict {
  if (adapter) return { send: false, why: 'model', adapter }
  if (isLoopbackHost(url.hostname)) return { send: true, why: 'loopback' }
  if (allow(url)) return { send: true, why: 'allowed' }
  return { send: false, why: 'remote' }
}

function refusalError(
  verdict: ReplayVerdict & { send: false },
  scope: { session?: Session },
  { url, method }: Outbound,
): CrashlabError {
  const session = scope.session
  const who = session
    ? `${session.where} (replay)`
    : "A request made outside any test's Session in replay mode"
  const allowText =
    '`allowHosts` (the crashlab() plugin option, or `allowHosts` in crashlab.config.ts) if the replay must reach it'
  if (!method) {
    const target = `${url.hostname}:${url.port || '80'}`
    return new CrashlabError(
      'E_REPLAY_CONNECTION',
      `${who} opened a connection to ${target} that crashlab's HTTP interception did not see (a client ` +
        "created before the interceptor, the undici package's own fetch() or request(), a raw socket); a " +
        `replay sends nothing off the machine, so the connection was refused. Add \`${target}\` to ${allowText}, ` +
        'or make the client visible to crashlab (create it after the interceptor starts, or `wrap(client)`).',
      { subject: target },
    )
  }
  // No query string: it may hold a key.
  const shown = `${method} ${url.origin}${url.pathname}`
  if (verdict.why === 'model') {
    // Inside a recording or replaying Session a model call is recorded and replayed on any host: one
    // refused here was made where no test's Session sees it.
    const fix = session
      ? `record again (\`${RERECORD_COMMAND}\`)`
      : "make it inside the test (a call made at module load, in a hook or on a timer belongs to no test's " +
        `recording), then record again (\`${RERECORD_COMMAND}\`)`
    return new CrashlabError(
      'E_UNHANDLED_HOST',
      `${who} sent ${shown}, a ${verdict.adapter.id} model call that no recording answers: a replay serves ` +
        `model calls from its cassette only, so it was refused and never sent. If the agent makes this call, ${fix}.`,
      { subject: `${url.origin}${url.pathname}` },
    )
  }
  const entry = hostEntry(url)
  const ways = session
    ? ` Mock it in your own MSW handlers (placed before crashlab's), add \`${entry}\` to ${allowText}, ` +
      `add it to the interceptor's \`hosts\` to record and replay it, or set \`otherHosts: 'passthrough'\` to ` +
      'let it reach the network.'
    : ` Add \`${entry}\` to ${allowText}, or turn off what sends it in tests (a trace exporter: its own switch).`
  return new CrashlabError(
    'E_UNHANDLED_HOST',
    `${who} sent ${shown}, a host crashlab does not record; in a replay it was refused and never ` +
      `sent.${ways}`,
    { subject: `${url.origin}${url.pathname}` },
  )
}

// A trace exporter retries on a timer: one warning per URL is enough to find it.
const warned = new Set<string>()

function warnOnce(message: string): void {
  if (warned.has(message)) return
  warned.add(message)
  process.emitWarning(message, { code: 'CRASHLAB_REPLAY_OFFLINE' })
}
