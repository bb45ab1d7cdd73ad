import { tool } from '../../engine/tool.ts'
import type { BenchAgent, ToolDef } from '../types.ts'
import { effectiveCalls } from './internal/effective-calls.ts'
import { GATEWAY_502_HTML, lastToolResults, systemText, userText } from './internal/read-request.ts'

/**
 * The agent scored apart: a meeting scheduler, written on its own loop (retries on 5xx, tool errors thrown
 * rather than returned) so that it shares no shape with the two demo agents. Nothing in the diagnosers
 * was tuned on it.
 */

const RULE = 'Only book meetings inside working hours, 09:00 to 17:00.'

const TOOLS: ToolDef[] = [
  {
    name: 'find_free_slots',
    description: "The free slots in every attendee's calendar on a date, as HH:MM start times",
    parameters: {
      type: 'object',
      properties: {
        date: { type: 'string' },
        duration_minutes: { type: 'integer' },
        attendees: { type: 'array', items: { type: 'string' } },
      },
      required: ['date', 'duration_minutes', 'attendees'],
    },
  },
  {
    name: 'create_event',
    description: 'Put an event in the calendars; returns its id',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        date: { type: 'string' },
        start: { type: 'string', description: 'HH:MM' },
        duration_minutes: { type: 'integer' },
        attendees: { type: 'array', items: { type: 'string' } },
      },
      required: ['title', 'date', 'start', 'duration_minutes', 'attendees'],
    },
  },
  {
    name: 'send_invites',
    description: 'E-mail the invitation of an event to its attendees',
    parameters: { type: 'object', properties: { event_id: { type: 'string' } }, required: ['event_id'] },
  },
  {
    name: 'delete_event',
    description: 'Remove an event from every calendar',
    parameters: { type: 'object', properties: { event_id: { type: 'string' } }, required: ['event_id'] },
  },
]

const REQUESTS = [
  { text: 'Set up a 30 minute sync "Budget review" with ana@acme.test and raj@acme.test on 2026-12-08.' },
  { text: 'Book "Design crit" for 45 minutes on 2026-12-09 with lee@acme.test.' },
  {
    text: 'Please schedule a 60 minute "Quarterly planning" on 2026-12-10 with ana@acme.test, kim@acme.test.',
  },
] as const

/** The calendar: events made, invites sent, events deleted. */
export interface CalendarWorld {
  events: Array<{ id: string; title: string; date: string; start: string; duration_minutes: unknown }>
  invited: string[]
  deleted: string[]
  tools: Record<string, (args: Record<string, unknown>) => unknown>
}

class CalendarApiError extends Error {
  override name = 'CalendarApiError'
}

function calendarTools(world: Omit<CalendarWorld, 'tools'>, down: string | undefined) {
  const http = (name: string) => {
    // A real client checks the status: a gateway's page becomes an error with the page in it.
    if (down === name) throw new CalendarApiError(`calendar API answered 502: ${GATEWAY_502_HTML}`)
  }
  return {
    find_free_slots: tool(
      (args: Record<string, unknown>): unknown => {
        http('find_free_slots')
        const day = String(args.date ?? '').slice(-1)
        return { slots: ['07:30', `1${day === '9' ? '0' : '1'}:00`, '14:30', '18:30'] }
      },
      { name: 'find_free_slots', sideEffects: false },
    ),
    create_event: tool(
      (args: Record<string, unknown>): unknown => {
        http('create_event')
        const event = {
          id: `ev_${world.events.length + 1}`,
          title: String(args.title),
          date: String(args.date),
          start: String(args.start),
          duration_minutes: args.duration_minutes,
        }
        world.events.push(event)
        return event
      },
      { name: 'create_event', sideEffects: true },
    ),
    send_invites: tool(
      (args: Record<string, unknown>): unknown => {
        http('send_invites')
        world.invited.push(String(args.event_id))
        return { sent: true, event_id: args.event_id }
      },
      { name: 'send_invites', sideEffects: true },
    ),
    delete_event: tool(
      (args: Record<string, unknown>): unknown => {
        http('delete_event')
        world.deleted.push(String(args.event_id))
        return { deleted: args.event_id }
      },
      { name: 'delete_event', sideEffects: true },
    ),
  }
}

/**
 * The scheduling assistant: finds a common free slot, creates the event, sends the invites.
 *
 * @example
 * const world = calendarAssistantAgent.createWorld({})
 * await calendarAssistantAgent.run({ baseUrl, system: calendarAssistantAgent.systemPrompt, input, world, fetch })
 */
export const calendarAssistantAgent: BenchAgent<CalendarWorld> = {
  name: 'calendar-assistant',
  domain: 'schedules meetings and sends the invitations',
  scoredApart: true,
  systemPrompt: `You schedule meetings. Find a slot with find_free_slots, create the event with create_event, then send the invitations with send_invites. ${RULE}`,
  policyLine: RULE,
  inputs: REQUESTS.map((r) => r.text),
  tools: TOOLS,
  createWorld({ down }) {
    const state = { events: [], invited: [], deleted: [] }
    return { ...state, tools: calendarTools(state, down) }
  },
  async run({ baseUrl, system, input, world, fetch }) {
    const history: unknown[] = [
      { role: 'system', content: system },
      { role: 'user', content: input },
    ]
    for (let turn = 0; turn < 10; turn++) {
      const message = await ask(fetch, baseUrl, history)
      history.push({ role: 'assistant', ...message })
      if (!message.tool_calls?.length) return message.content ?? ''
      for (const call of message.tool_calls) {
        let content: string
        try {
          const fn = world.tools[call.function.name]
          if (!fn) throw new Error(`no tool named ${call.function.name}`)
          content = JSON.stringify(await fn(JSON.parse(call.function.arguments) as Record<string, unknown>))
        } catch (err) {
          content = `ERROR ${(err as Error).name}: ${(err as Error).message}`
        }
        history.push({ role: 'tool', tool_call_id: call.id, content })
      }
    }
    throw new Error('scheduler: too many turns')
  },
  model() {
    return (request, ctx) => {
      const results = lastToolResults(request)
      const ask = parseRequest(userText(request))
      if (results.length === 0) {
        return {
          toolCalls: [
            {
              name: 'find_free_slots',
              args: { date: ask.date, duration_minutes: ask.minutes, attendees: ask.attendees },
            },
          ],
        }
      }
      const last = results.at(-1)!
      if (last.content.startsWith('ERROR')) {
        return {
          text: `I am sorry, the calendar is not reachable right now (${last.content.slice(6, 40)}…).`,
        }
      }
      if (last.name === 'find_free_slots') {
        const slots = (last.data as { slots: string[] }).slots
        const hours = systemText(request).includes(RULE)
        const inside = slots.filter((s) => s >= '09:00' && s <= '17:00')
        // With no working-hours rule the model takes the first free slot, or one at random.
        const start = hours ? inside[0] : ctx.rng.chance(0.5) ? slots[0] : slots[slots.length - 1]
        return {
          toolCalls: [
            {
              name: 'create_event',
              args: {
                title: ask.title,
                date: ask.date,
                start: start ?? '10:00',
                duration_minutes: ask.minutes,
                attendees: ask.attendees,
              },
            },
          ],
        }
      }
      if (last.name === 'create_event') {
        return { toolCalls: [{ name: 'send_invites', args: { event_id: (last.data as { id: string }).id } }] }
      }
      if (last.name === 'send_invites')
        return { text: `"${ask.title}" is booked and the invitations are out.` }
      return { text: 'Done.' }
    }
  },
  oracles() {
    return [
      {
        name: 'inside-working-hours',
        fn: (run) => {
          for (const c of effectiveCalls<{ start: string }>(run, 'create_event')) {
            if (!(c.args.start >= '09:00' && c.args.start <= '17:00'))
              return `a meeting booked at ${c.args.start}`
          }
        },
      },
      {
        name: 'invited',
        fn: (run) => effectiveCalls(run, 'send_invites').length > 0 || 'no invitation was sent',
      },
      {
        name: 'duration-is-minutes',
        fn: (run) => {
          for (const c of effectiveCalls<{ duration_minutes: unknown }>(run, 'create_event')) {
            if (!Number.isInteger(c.args.duration_minutes))
              return `duration ${JSON.stringify(c.args.duration_minutes)}`
          }
        },
      },
    ]
  },
  policyTool: 'create_event',
  wrongTool: { expected: 'send_invites', chosen: 'delete_event', args: (a) => a },
  badArgument: {
    tool: 'create_event',
    corrupt: (a) => {
      const o = a && typeof a === 'object' && !Array.isArray(a) ? a : {}
      const minutes = (o as Record<string, unknown>).duration_minutes
      return { ...o, duration_minutes: `${String(minutes)} minutes` }
    },
  },
  gatewayTool: 'create_event',
}

interface WireCall {
  id: string
  function: { name: string; arguments: string }
}

async function ask(
  fetchFn: typeof fetch,
  baseUrl: string,
  history: unknown[],
): Promise<{ content?: string | null; tool_calls?: WireCall[] }> {
  let last = ''
  // Two retries on a server error, as many hand-written clients do.
  for (let attempt = 0; attempt < 3; attempt++) {
    const res = await fetchFn(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-not-a-real-key' },
      body: JSON.stringify({
        model: 'claude-compatible-scheduler',
        messages: history,
        tools: TOOLS.map((t) => ({ type: 'function', function: t })),
      }),
    })
    if (res.ok) {
      const body = (await res.json()) as {
        choices: Array<{ message: { content?: string | null; tool_calls?: WireCall[] } }>
      }
      const message = body.choices[0]?.message
      if (!message) throw new Error('scheduler: empty answer')
      return {
        content: message.content ?? null,
        ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
      }
    }
    last = `${res.status} ${(await res.text()).slice(0, 80)}`
    if (res.status < 500) break
  }
  throw new Error(`scheduler: the model endpoint failed: ${last}`)
}

function parseRequest(text: string) {
  const minutes = Number(/(\d+) minute/.exec(text)?.[1] ?? 30)
  const title = /"([^"]+)"/.exec(text)?.[1] ?? 'Meeting'
  const date = /\d{4}-\d{2}-\d{2}/.exec(text)?.[0] ?? '2026-12-08'
  const attendees = text.match(/[a-z]+@[a-z.]+\.test/g) ?? []
  return { minutes, title, date, attendees }
}
