import type { JsonObject } from '../../schema/json.ts'
import { CRASHLAB_EXTENSION, type EventExtension } from '../crashlab-extension.ts'
import type { AgentCaseCaptureStatus, AgentCaseEvent, AgentCaseEventType } from '../schema.ts'
import { deriveUuid } from './derive-ids.ts'

export interface NewEvent {
  timestamp: string
  parent: string | null
  payload: JsonObject
  /** Goes under `extensions["dev.crashlab"]`; build it without undefined-valued keys. */
  ext?: EventExtension
  capture?: AgentCaseCaptureStatus
}

/**
 * The events of an export as they are appended: sequence = position, ids derived from the run id and
 * the position (stable exports), and a table from crashlab JSON Pointers to AgentCase ones, filled as
 * each field finds its place, so that the run's redaction records can point into the case.
 */
export class EventLog {
  readonly events: AgentCaseEvent[] = []
  /** [crashlab pointer prefix, AgentCase pointer prefix], longest match wins. */
  readonly pointers: Array<[string, string]> = []

  private readonly runId: string

  constructor(runId: string) {
    this.runId = runId
  }

  /**
   * Appends an event and returns its id.
   *
   * @example
   * const startId = log.add('execution.start', { timestamp: run.startedAt, parent: null, payload: { name: run.name } })
   */
  add(type: AgentCaseEventType, e: NewEvent): string {
    const sequence = this.events.length
    const event_id = deriveUuid(this.runId, 'event', sequence)
    this.events.push({
      event_id,
      event_type: type,
      sequence,
      timestamp: e.timestamp,
      parent_event_id: e.parent,
      payload: e.payload,
      capture_status: e.capture ?? 'captured',
      redaction_status: 'none',
      extensions: e.ext ? { [CRASHLAB_EXTENSION]: e.ext as unknown as JsonObject } : {},
    })
    return event_id
  }

  /** The pointer of the event just added, e.g. `/events/4`. */
  get lastPointer(): string {
    return `/events/${this.events.length - 1}`
  }

  /** Records that crashlab's `from` now lives at AgentCase's `to`. */
  map(from: string, to: string): void {
    this.pointers.push([from, to])
  }
}

/**
 * An instant `ms` after `iso`, in ISO form; `iso` itself when the sum is no valid date (a huge duration
 * must not make the export throw).
 *
 * @example
 * isoAfter('2026-07-14T00:00:00Z', 1500) // '2026-07-14T00:00:01.500Z'
 */
export function isoAfter(iso: string, ms: number): string {
  const t = Date.parse(iso) + ms
  const d = new Date(t)
  if (!Number.isFinite(t) || Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) return iso
  return d.toISOString()
}
