import type { ToolDefinition } from '../../src/case/schema/normalized.ts'
import type { WireRequest } from '../../src/case/schema/step.ts'
import { getAdapter } from '../../src/providers/registry.ts'
import type { ProviderId } from '../../src/providers/types.ts'

/**
 * A 50-message conversation: the shared fixture's turns repeated (user, assistant + tool call, tool
 * result, assistant) with ids and text varied so that nothing is shared between turns, normalized once
 * and written back into the API's wire format by its own adapter, with `tools`.
 *
 * @example
 * const request = longRequest('openai-chat', OPENAI_CHAT_CONVERSATION, CONVERSATION_TOOLS)
 */
export function longRequest(id: ProviderId, base: WireRequest, tools: ToolDefinition[]): WireRequest {
  const adapter = getAdapter(id)
  const seed = adapter.normalizeRequest(base)
  const messages = []
  for (let i = 0; messages.length < 50; i++) {
    for (const m of seed.messages) {
      if (messages.length >= 50) break
      messages.push(
        JSON.parse(
          JSON.stringify(m)
            .replaceAll('A17', `A${17 + i}`)
            .replaceAll('call_A', `call_${i}_A`),
        ),
      )
    }
  }
  return adapter.writeRequest({ ...seed, messages, tools }, base)
}
