import type { AgentCase, AgentCaseEvent } from '../../case/agentcase/schema.ts'
import { CrashlabError } from '../../errors.ts'

/**
 * The recorded external interactions of a case, as mock replay and the replay projection see them: every
 * `model.request` and `tool.call`, in sequence order, each with the `model.response` / `tool.result`
 * events whose parent it is. Other events (messages, retries, exceptions) are evidence, not interactions.
 */

/**
 * One recorded interaction: the request or call, and its answers (exactly one in a replayable case).
 *
 * @example
 * const [first] = listInteractions(c) // { kind: 'model', position: 0, request: <model.request>, answers: [<model.response>] }
 */
export interface RecordedInteraction {
  kind: 'model' | 'tool'
  /** 0-based position among the interactions of the case. */
  position: number
  request: AgentCaseEvent
  answers: AgentCaseEvent[]
}

const ANSWER_OF = { 'model.request': 'model.response', 'tool.call': 'tool.result' } as const

/**
 * The interactions of `c` in sequence order. Ids are compared case-insensitively, as the reader does.
 *
 * @example
 * listInteractions(loadAgentCase('failure.agentcase')).filter((i) => i.kind === 'tool').length
 */
export function listInteractions(c: AgentCase): RecordedInteraction[] {
  const children = new Map<string, AgentCaseEvent[]>()
  for (const e of c.events) {
    if (e.parent_event_id === null) continue
    const key = e.parent_event_id.toLowerCase()
    const list = children.get(key)
    if (list) list.push(e)
    else children.set(key, [e])
  }
  const out: RecordedInteraction[] = []
  for (const e of [...c.events].sort((a, b) => a.sequence - b.sequence)) {
    if (e.event_type !== 'model.request' && e.event_type !== 'tool.call') continue
    const answerType = ANSWER_OF[e.event_type]
    out.push({
      kind: e.event_type === 'model.request' ? 'model' : 'tool',
      position: out.length,
      request: e,
      answers: (children.get(e.event_id.toLowerCase()) ?? []).filter((x) => x.event_type === answerType),
    })
  }
  return out
}

/**
 * Names an event the way every mock-replay message does: type, sequence, the tool's name, the id.
 *
 * @example
 * describeEvent(call) // 'tool.call #5 "get_order" (event 0f6c…)'
 */
export function describeEvent(e: AgentCaseEvent): string {
  const name = e.payload.name ?? e.payload.tool_name
  const tool = e.event_type.startsWith('tool.') && typeof name === 'string' ? ` ${JSON.stringify(name)}` : ''
  return `${e.event_type} #${e.sequence}${tool} (event ${e.event_id})`
}

/**
 * Options of `checkMockSource`.
 *
 * @example
 * checkMockSource(c, 'failure.agentcase', { allowIncomplete: false, projection: true })
 */
export interface MockSourceOptions {
  allowIncomplete: boolean
  /** The projection copies every answer, so it refuses a missing one up front (E_MOCK_MISSING). */
  projection: boolean
}

/**
 * Refuses a case whose interactions cannot be served as recorded data: a live or differential replay
 * (its events are not one recorded execution), an incomplete capture unless allowed, a request or call
 * with more than one answer (which one did the application see?). Each error names the case and the event.
 *
 * @example
 * checkMockSource(c, 'failure.agentcase', { allowIncomplete: false, projection: false })
 */
export function checkMockSource(c: AgentCase, source: string, options: MockSourceOptions): void {
  const refuse = (message: string) => new CrashlabError('E_MOCK_SOURCE', message, { subject: source })
  if (c.replay !== null && (options.projection || c.replay.mode !== 'mock')) {
    throw refuse(
      `${source} is already a ${c.replay.mode} replay of case ${c.replay.source_case_id}; ${options.projection ? 'project' : 'mock-replay'} the captured source case instead.`,
    )
  }
  if (!options.allowIncomplete && c.completeness !== 'complete') {
    throw refuse(
      `${source} is a ${c.completeness} capture: some evidence of the execution is missing, so a mock replay could serve answers that are not what the application saw. Pass { allowIncomplete: true } to replay it anyway.`,
    )
  }
  for (const item of listInteractions(c)) {
    if (item.answers.length > 1) {
      throw refuse(
        `${source}: ${describeEvent(item.request)} has ${item.answers.length} ${item.answers[0]!.event_type} events (${item.answers.map((a) => `#${a.sequence}`).join(', ')}); a replay cannot tell which one the application saw. Record a retry and a new request for each attempt.`,
      )
    }
    if (options.projection && item.answers.length === 0) {
      throw new CrashlabError(
        'E_MOCK_MISSING',
        `${source}: ${describeEvent(item.request)} has no recorded ${ANSWER_OF[item.request.event_type as keyof typeof ANSWER_OF]}, so a mock replay has nothing to serve for it, and it never calls the model or the tool live. Capture the execution again with the answer recorded.`,
        { subject: source },
      )
    }
  }
}
