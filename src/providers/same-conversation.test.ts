import { describe, expect, it } from 'vitest'
import type { WireRequest } from '../case/schema/step.ts'
import { anthropicMessages } from './anthropic-messages.ts'
import { gemini } from './gemini.ts'
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_SYSTEM,
  CONVERSATION_TOOLS,
} from './internal/test-conversation.ts'
import { ANTHROPIC_CONVERSATION, GEMINI_CONVERSATION } from './internal/test-conversation-anthropic-gemini.ts'
import {
  OPENAI_CHAT_CONVERSATION,
  OPENAI_RESPONSES_CONVERSATION,
} from './internal/test-conversation-openai.ts'
import { openaiChat } from './openai-chat.ts'
import { openaiResponses } from './openai-responses.ts'
import { findAdapter } from './registry.ts'
import type { ProviderAdapter } from './types.ts'

const written: Array<[ProviderAdapter, WireRequest]> = [
  [openaiChat, OPENAI_CHAT_CONVERSATION],
  [openaiResponses, OPENAI_RESPONSES_CONVERSATION],
  [anthropicMessages, ANTHROPIC_CONVERSATION],
  [gemini, GEMINI_CONVERSATION],
]

describe('one conversation written for each of the four APIs', () => {
  it.each(written.map(([a, w]) => [a.id, a, w] as const))(
    '%s: the registry routes it to its adapter',
    (_, adapter, wire) => {
      expect(findAdapter(wire)?.id).toBe(adapter.id)
    },
  )

  it('normalizes to equal system, messages and tools', () => {
    const normalized = written.map(([adapter, wire]) => adapter.normalizeRequest(wire))
    for (const n of normalized) {
      expect(n.system).toEqual(CONVERSATION_SYSTEM)
      expect(n.messages).toEqual(CONVERSATION_MESSAGES)
      expect(n.tools).toEqual(CONVERSATION_TOOLS)
    }
  })

  it('survives writeRequest into every other API and back', () => {
    // The patches of a fork are applied to the normalized request and written back per API: a
    // conversation normalized from one API and written into another must read back the same.
    for (const [from, fromWire] of written) {
      const normalized = from.normalizeRequest(fromWire)
      for (const [to, toWire] of written) {
        const rewritten = to.writeRequest({ ...normalized, model: to.normalizeRequest(toWire).model }, toWire)
        const back = to.normalizeRequest(rewritten)
        expect({
          from: from.id,
          to: to.id,
          messages: back.messages,
          system: back.system,
          tools: back.tools,
        }).toEqual({
          from: from.id,
          to: to.id,
          messages: normalized.messages,
          system: normalized.system,
          tools: normalized.tools,
        })
      }
    }
  })
})
