/** The bench's agents: two demo agents the diagnosers may be tuned on, and one held out. */
import type { BenchAgent } from '../types.ts'
import { calendarAssistantAgent } from './calendar-assistant.ts'
import { flightRebookerAgent } from './flight-rebooker.ts'
import { refundBotAgent } from './refund-bot.ts'

export { calendarAssistantAgent } from './calendar-assistant.ts'
export { flightRebookerAgent } from './flight-rebooker.ts'
export { refundBotAgent } from './refund-bot.ts'

/**
 * Every bench agent, the demo agents first, the held-out one last.
 *
 * @example
 * BENCH_AGENTS.filter((a) => !a.heldOut).map((a) => a.name) // ['refund-bot', 'flight-rebooker']
 */
// biome-ignore lint/suspicious/noExplicitAny: each agent has a world type of its own, which only it reads
export const BENCH_AGENTS: readonly BenchAgent<any>[] = [
  refundBotAgent,
  flightRebookerAgent,
  calendarAssistantAgent,
]
