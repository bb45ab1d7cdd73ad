import { CrashlabError } from '../../../errors.ts'
import type { AgentCaseEvent } from '../schema.ts'

/**
 * The event checks that follow field validation, in the order the format gives: ids unique, sequences
 * exactly 0..n-1, every parent exists, every parent comes first. Order is `sequence`, never timestamps:
 * clocks of different processes disagree, the writer's counter does not.
 */

/**
 * Throws the first broken event rule of `events`, with its own code.
 *
 * @example
 * checkAgentCaseEvents(agentCase.events, 'run.agentcase')
 */
export function checkAgentCaseEvents(events: readonly AgentCaseEvent[], source: string): void {
  // UUIDs compare case-insensitively: `A…` and `a…` are the same id to any UUID parser.
  const indexById = new Map<string, number>()
  events.forEach((event, i) => {
    const id = event.event_id.toLowerCase()
    const first = indexById.get(id)
    if (first !== undefined) {
      fail(
        'E_AGENTCASE_DUPLICATE_EVENT_ID',
        source,
        i,
        'event_id',
        `events[${i}] reuses event_id ${event.event_id} of events[${first}]; every event needs its own id`,
      )
    }
    indexById.set(id, i)
  })

  events.forEach((event, i) => {
    if (event.sequence !== i) {
      fail(
        'E_AGENTCASE_SEQUENCE',
        source,
        i,
        'sequence',
        `events[${i}] has sequence ${event.sequence}, expected ${i}: sequences are exactly 0..n-1 in array order`,
      )
    }
  })

  events.forEach((event, i) => {
    if (event.parent_event_id === null) return
    const parent = indexById.get(event.parent_event_id.toLowerCase())
    if (parent === undefined) {
      fail(
        'E_AGENTCASE_PARENT_MISSING',
        source,
        i,
        'parent_event_id',
        `events[${i}] (${event.event_type}) names parent_event_id ${event.parent_event_id}, which is no event of this case`,
      )
    }
    if (events[parent]!.sequence >= event.sequence) {
      fail(
        'E_AGENTCASE_PARENT_ORDER',
        source,
        i,
        'parent_event_id',
        `events[${i}] (${event.event_type}, sequence ${event.sequence}) has parent events[${parent}] with sequence ${events[parent]!.sequence}; a parent must come before its child`,
      )
    }
  })
}

function fail(
  code:
    | 'E_AGENTCASE_DUPLICATE_EVENT_ID'
    | 'E_AGENTCASE_SEQUENCE'
    | 'E_AGENTCASE_PARENT_MISSING'
    | 'E_AGENTCASE_PARENT_ORDER',
  source: string,
  index: number,
  field: string,
  message: string,
): never {
  const path = `$.events[${index}].${field}`
  throw new CrashlabError(
    code,
    `${source}: ${message}. Fix the writer that produced the file; crashlab will not guess the intended order.`,
    {
      subject: source,
      issues: [{ code, path, message }],
    },
  )
}
