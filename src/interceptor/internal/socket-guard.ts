import net from 'node:net'
import type { ReplayRule } from '../replay-network.ts'

/**
 * The socket-level half of a replay's network rule. crashlab's HTTP interception (MSW) sees `fetch` and
 * `node:http`, but not a client that kept the `fetch` it found before the interceptor started, the
 * `undici` package's own `fetch()` and `request()`, or a raw `net`/`tls` socket. Each of them ends in
 * `net.Socket.prototype.connect` (`net.connect` and `tls.connect` call it), so the guard patches that
 * one method: a connection opened under the rule (a replay Session, or outside any Session when the
 * rule says so) to a host that is neither loopback nor allowed fails with `E_REPLAY_CONNECTION` before
 * any packet leaves. The host is judged as the caller wrote it (no DNS lookup).
 *
 * One patch per process (on `globalThis`, shared by every copy of crashlab), and a stack of active
 * rules: the newest decides. With none active the patch calls the original and nothing else.
 */
interface GuardState {
  original: net.Socket['connect']
  rules: ReplayRule[]
}

const KEY = Symbol.for('crashlab.socket-guard')
const holder = globalThis as typeof globalThis & { [KEY]?: GuardState }

/**
 * Activates `rule` at the socket level until the returned function is called (twice is a no-op).
 *
 * @example
 * const release = guardSockets(replayRule({ outsideSession: 'replay' }))
 * try { await replay() } finally { release() }
 */
export function guardSockets(rule: ReplayRule): () => void {
  const state = install()
  state.rules.push(rule)
  let released = false
  return () => {
    if (released) return
    released = true
    const at = state.rules.lastIndexOf(rule)
    if (at !== -1) state.rules.splice(at, 1)
  }
}

function install(): GuardState {
  const existing = holder[KEY]
  if (existing) return existing
  const original = net.Socket.prototype.connect
  const state: GuardState = { original, rules: [] }
  holder[KEY] = state
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const rule = state.rules.at(-1)
    const target = rule ? targetOf(args) : undefined
    const scope = target && rule?.scope()
    if (rule && target && scope) {
      const url = new URL(
        `http://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`,
      )
      const counted = `${url.hostname}:${target.port}`
      const verdict = rule.judge({ url })
      if (verdict.send) {
        rule.sent('connections', counted)
      } else {
        const error = rule.refusal(verdict, scope, { url })
        rule.refuse(error, scope, counted)
        // As a failed connect fails: asynchronously, with an 'error' event the client already listens to.
        process.nextTick(() => this.destroy(error))
        return this
      }
    }
    return (state.original as (...a: unknown[]) => net.Socket).apply(this, args)
  } as net.Socket['connect']
  return state
}

/** The TCP host and port a `connect` call dials, or undefined for an IPC path (local by nature). */
function targetOf(args: unknown[]): { host: string; port: number } | undefined {
  const first = args[0]
  // net.connect() and tls.connect() hand over their normalized arguments: [options, callback].
  const options = Array.isArray(first) ? first[0] : first
  if (options && typeof options === 'object') {
    const o = options as { path?: unknown; host?: unknown; port?: unknown; lookup?: unknown }
    if (o.path) return undefined
    if (isMswMockConnect(o.lookup)) return undefined
    return { host: typeof o.host === 'string' && o.host ? o.host : 'localhost', port: Number(o.port) }
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return undefined
  return { host: typeof args[1] === 'string' && args[1] ? args[1] : 'localhost', port: Number(first) }
}

/**
 * msw 3 answers `fetch` and `node:http` at the socket: its own patch of this method (above the guard's,
 * which is installed before msw listens) connects the caller's socket to a mock with a lookup of its
 * own, `mockLookup`, that sends nothing; what msw lets through is then dialled on a fresh socket, which
 * the guard judges. Only that mock connect is skipped (checked against @mswjs/interceptors 0.45; a test
 * replays a call to an intercepted remote address through msw, and fails if this stops matching).
 */
function isMswMockConnect(lookup: unknown): boolean {
  return typeof lookup === 'function' && lookup.name === 'mockLookup'
}
