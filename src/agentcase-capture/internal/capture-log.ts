import { randomUUID } from 'node:crypto'
import type { AgentCaseEvent, AgentCaseEventType } from '../../case/agentcase/schema.ts'
import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import { jsonPath } from '../../case/validation-issues.ts'
import { CrashlabError } from '../../errors.ts'
import { copyJson } from './copy-json.ts'

/**
 * The append-only event list of one capture session. Sequence is the position, ids are random UUIDs
 * (a capture is one real execution, never re-derived), parents are checked when the event is added, so
 * that `close` never meets a case the validator refuses because of the application's bookkeeping.
 */

/**
 * What an event is built from; payload values are still the application's own.
 *
 * @example
 * log.add('message', { parent: null, payload: { role: 'user', content: 'hi' } })
 */
export interface CaptureEntry {
  parent: string | null
  payload: Record<string, unknown>
  extensions?: Record<string, unknown> | undefined
}

export class CaptureLog {
  readonly events: AgentCaseEvent[] = []
  /** `$`-paths into the case of every value that JSON could not carry and was left out. */
  readonly dropped: string[] = []
  private readonly byId = new Map<string, AgentCaseEvent>()
  /** Requests and calls that already have their response or result. */
  private readonly answered = new Set<string>()
  private readonly now: () => Date

  constructor(now: () => Date) {
    this.now = now
  }

  /**
   * Appends an event and returns its id.
   *
   * @example
   * const id = log.add('tool.call', { parent: startId, payload: { name: 'get_order', call_id: 'c1', arguments: {} } })
   */
  add(type: AgentCaseEventType, entry: CaptureEntry): string {
    const sequence = this.events.length
    const before = this.dropped.length
    const payload = this.copy(entry.payload, ['events', sequence, 'payload'])
    const extensions = this.copy(entry.extensions ?? {}, ['events', sequence, 'extensions'])
    const event: AgentCaseEvent = {
      event_id: randomUUID(),
      event_type: type,
      sequence,
      timestamp: this.now().toISOString(),
      parent_event_id: entry.parent,
      payload,
      // A value left out makes the event's evidence partial; the case says `degraded` at close.
      capture_status: this.dropped.length > before ? 'partial' : 'captured',
      redaction_status: 'none',
      extensions,
    }
    this.events.push(event)
    this.byId.set(event.event_id, event)
    return event.event_id
  }

  /**
   * The event `id` of this session, checked against the types a parent of `child` may have.
   *
   * @example
   * log.parent(requestId, 'model.response', ['model.request'])
   */
  parent(id: unknown, child: string, types?: readonly AgentCaseEventType[]): AgentCaseEvent {
    const event = typeof id === 'string' ? this.byId.get(id) : undefined
    if (!event) {
      throw usage(
        `${child}: parentEventId ${JSON.stringify(id)} is not an event of this capture session. Pass the id an earlier call returned.`,
      )
    }
    if (types && !types.includes(event.event_type)) {
      throw usage(
        `${child}: its parent must be a ${types.join(' or ')}, but ${id} is the ${event.event_type} event #${event.sequence}.`,
      )
    }
    return event
  }

  /**
   * Marks a request or call as answered; a second answer is refused, since a replay could not tell
   * which one the application saw.
   *
   * @example
   * log.answer(request, 'model.response')
   */
  answer(parent: AgentCaseEvent, child: string): void {
    if (this.answered.has(parent.event_id)) {
      throw usage(
        `${child}: the ${parent.event_type} event #${parent.sequence} (${parent.event_id}) already has its ${child}. Record a retry and a new ${parent.event_type} for a second attempt.`,
      )
    }
    this.answered.add(parent.event_id)
  }

  private copy(value: Record<string, unknown>, at: PropertyKey[]): JsonObject {
    const { value: json, dropped } = copyJson(value)
    const prefix = jsonPath(at)
    for (const path of dropped) this.dropped.push(prefix + path.slice(1))
    return isObject(json) ? json : {}
  }
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The error of a capture method used the wrong way.
 *
 * @example
 * throw usage('the session is closed')
 */
export function usage(message: string): CrashlabError {
  return new CrashlabError('E_CAPTURE_USAGE', `capture: ${message}`)
}
