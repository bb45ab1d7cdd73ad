import type { Message } from '../../../case/schema/normalized.ts'

/**
 * Where a request's newest messages start: after its last assistant message. An agent loop resends the
 * whole conversation on every call; what is new in a call (the tool results, the user's next words)
 * follows the model's last answer, so reading from here reads each message about once per run.
 *
 * @example
 * newestFrom([user, assistant, toolResult]) // 2
 */
export function newestFrom(messages: readonly Message[]): number {
  let from = messages.length
  while (from > 0 && messages[from - 1]!.role !== 'assistant') from--
  return from
}
