import type { RedactionInfo } from '../../schema/run.ts'
import { CRASHLAB_EXTENSION } from '../crashlab-extension.ts'
import type { AgentCaseEvent, AgentCaseRedaction, AgentCaseRedactionStatus } from '../schema.ts'

/**
 * crashlab redacts a run before it is stored, and records each replacement as a JSON Pointer into the
 * cassette it wrote (`/run/steps/3/request/wire/headers/authorization`). An AgentCase record must point
 * into the case instead, so each pointer is translated through the table the export built while placing
 * fields (longest prefix wins; what matches nothing falls back to the run's extension object).
 */

const MARKER = /\[REDACTED[^\]]*\]/

/**
 * The AgentCase `redaction` object of an exported run, and which events hold a redacted value.
 *
 * @example
 * const { redaction, redactedEvents } = mapRunRedaction(run.redaction, log.pointers, { events: log.events })
 */
export function mapRunRedaction(
  info: RedactionInfo,
  pointers: ReadonlyArray<[string, string]>,
  doc: { events: AgentCaseEvent[] } & Record<string, unknown>,
): { redaction: AgentCaseRedaction; redactedEvents: Set<number> } {
  const table = [...pointers, ['', `/extensions/${CRASHLAB_EXTENSION}/run`] as [string, string]].sort(
    (a, b) => b[0].length - a[0].length,
  )
  const redactedEvents = new Set<number>()
  const records = info.records.map((r) => {
    const field_path = translate(r.path, table)
    const event = /^\/events\/(\d+)(?:\/|$)/.exec(field_path)
    if (event) redactedEvents.add(Number(event[1]))
    const value = getPointer(doc, field_path)
    const marker = typeof value === 'string' ? MARKER.exec(value)?.[0] : undefined
    return {
      field_path,
      rule_id: r.rule,
      replacement_marker: marker ?? `[REDACTED:${r.rule}]`,
      irreversible: true as const,
    }
  })
  // The format forbids "none" with records and "redacted" without; crashlab's model does not, so an
  // inconsistent pair is made honest here (the exact pair travels in the extension).
  let status: AgentCaseRedactionStatus = info.status
  if (status === 'none' && records.length > 0) status = 'redacted'
  if (status === 'redacted' && records.length === 0) status = 'unknown'
  const partial = info.status === 'partial'
  return {
    redaction: {
      status,
      records,
      warnings: partial
        ? ['crashlab could not apply every redaction rule to this run; some values were dropped.']
        : [],
      potentially_sensitive_unredacted: partial,
      extensions: {},
    },
    redactedEvents,
  }
}

function translate(path: string, table: ReadonlyArray<[string, string]>): string {
  // A cassette wraps the run as `/run`; the run model has no key of that name, so the prefix is unambiguous.
  const p = path === '/run' ? '' : path.startsWith('/run/') ? path.slice(4) : path
  for (const [from, to] of table) {
    if (p === from) return to
    if (p.startsWith(`${from}/`)) return to + p.slice(from.length)
  }
  return path
}

/** Reads an RFC 6901 pointer; undefined when it leads nowhere. */
export function getPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc
  let v: unknown = doc
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) return undefined
    v = (v as Record<string, unknown>)[key]
  }
  return v
}
