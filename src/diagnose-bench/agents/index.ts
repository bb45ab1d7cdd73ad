/**
 * The tuning set's agents: two demo agents and calendar-assistant, scored apart. The diagnosers were
 * tuned on all three (calendar-assistant was held out when built); the agents never tuned on are the
 * held-out set, `src/diagnose-bench/heldout/`.
 */
import type { BenchAgent } from '../types.ts'
import { calendarAssistantAgent } from './calendar-assistant.ts'
import { flightRebookerAgent } from './flight-rebooker.ts'
import { refundBotAgent } from './refund-bot.ts'

export { calendarAssistantAgent } from './calendar-assistant.ts'
export { flightRebookerAgent } from './flight-rebooker.ts'
export { refundBotAgent } from './refund-bot.ts'

/**
 * Every agent of the tuning set, the demo agents first, the one scored apart last.
 *
 * @example
 * BENCH_AGENTS.filter((a) => !a.scoredApart).map((a) => a.name) // ['refund-bot', 'flight-rebooker']
 */
// biome-ignore lint/suspicious/noExplicitAny: each agent has a world type of its own, which only it reads
export const BENCH_AGENTS: readonly BenchAgent<any>[] = [
  refundBotAgent,
  flightRebookerAgent,
  calendarAssistantAgent,
]
