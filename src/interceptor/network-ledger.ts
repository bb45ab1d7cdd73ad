/**
 * What replays in this process let out and kept in, counted where it happened: requests the HTTP
 * interception passed on, connections the socket guard let open, and what either refused. `crashlab
 * replay` reads the difference over a replay to say "nothing sent" only when nothing was. On
 * `globalThis`, so that every copy of crashlab in the process (the CLI's, the one a module runner loads)
 * counts into the same ledger.
 */
export interface NetworkLedger {
  /** `METHOD url` of each request a replay let through to a loopback or allowed host. */
  requests: string[]
  /** `host:port` of each connection a replay let open. */
  connections: string[]
  /** `METHOD url` or `host:port` of each request or connection a replay refused. */
  refused: string[]
}

const KEY = Symbol.for('crashlab.network-ledger')
const holder = globalThis as typeof globalThis & { [KEY]?: NetworkLedger }

/**
 * The process's ledger (live: callers copy what they keep).
 *
 * @example
 * const before = ledgerMark(); await replay(); const sent = ledgerSince(before).connections
 */
export function networkLedger(): NetworkLedger {
  holder[KEY] ??= { requests: [], connections: [], refused: [] }
  return holder[KEY]
}

/** Where the ledger stands now, to count what comes after. */
export type LedgerMark = { requests: number; connections: number; refused: number }

/**
 * Marks the ledger's current length.
 *
 * @example
 * const mark = ledgerMark()
 */
export function ledgerMark(): LedgerMark {
  const l = networkLedger()
  return { requests: l.requests.length, connections: l.connections.length, refused: l.refused.length }
}

/**
 * What was counted since `mark`.
 *
 * @example
 * ledgerSince(mark).refused // ['GET http://203.0.113.7/telemetry']
 */
export function ledgerSince(mark: LedgerMark): NetworkLedger {
  const l = networkLedger()
  return {
    requests: l.requests.slice(mark.requests),
    connections: l.connections.slice(mark.connections),
    refused: l.refused.slice(mark.refused),
  }
}
