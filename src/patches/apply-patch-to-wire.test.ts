import { describe, expect, it } from 'vitest'
import type { WireRequest } from '../case/schema/step.ts'
import { anthropicMessages } from '../providers/anthropic-messages.ts'
import { gemini } from '../providers/gemini.ts'
import {
  ANTHROPIC_CONVERSATION,
  GEMINI_CONVERSATION,
} from '../providers/internal/test-conversation-anthropic-gemini.ts'
import {
  OPENAI_CHAT_CONVERSATION,
  OPENAI_RESPONSES_CONVERSATION,
} from '../providers/internal/test-conversation-openai.ts'
import { openaiChat } from '../providers/openai-chat.ts'
import { openaiResponses } from '../providers/openai-responses.ts'
import type { ProviderAdapter } from '../providers/types.ts'
import { applyPatchToWire } from './apply-patch-to-wire.ts'
import type { Patch } from './patch-schema.ts'

const APIS: Array<[string, ProviderAdapter, WireRequest]> = [
  ['openai-chat', openaiChat, OPENAI_CHAT_CONVERSATION],
  ['openai-responses', openaiResponses, OPENAI_RESPONSES_CONVERSATION],
  ['anthropic-messages', anthropicMessages, ANTHROPIC_CONVERSATION],
  ['gemini', gemini, GEMINI_CONVERSATION],
]

const SECOND = 'Ask for a photo of the damage.'

/** Every patch kind and op, each on a target the shared test conversation has. */
const PATCHES: Array<[string, Patch]> = [
  [
    'system_prompt replace',
    { kind: 'system_prompt', op: 'replace', text: 'You are a careful refund agent.' },
  ],
  ['system_prompt append', { kind: 'system_prompt', op: 'append', text: SECOND }],
  ['system_prompt prepend', { kind: 'system_prompt', op: 'prepend', text: 'Be brief.' }],
  [
    'system_prompt insert',
    {
      kind: 'system_prompt',
      op: 'insert',
      text: 'Check the order first.',
      after: 'You are a refund assistant. Never refund more than the order total.',
    },
  ],
  [
    'system_prompt replace_line',
    {
      kind: 'compose',
      patches: [
        { kind: 'system_prompt', op: 'append', text: SECOND },
        { kind: 'system_prompt', op: 'replace_line', line: SECOND, text: 'Ask for the order id.' },
      ],
    },
  ],
  [
    'system_prompt delete_line',
    {
      kind: 'compose',
      patches: [
        { kind: 'system_prompt', op: 'append', text: SECOND },
        { kind: 'system_prompt', op: 'delete_line', line: SECOND },
        { kind: 'system_prompt', op: 'prepend', text: 'Be brief.' },
      ],
    },
  ],
  [
    'system_prompt substitute',
    { kind: 'system_prompt', op: 'substitute', find: 'refund', replace: 'returns' },
  ],
  [
    'message replace',
    { kind: 'message', op: 'replace', role: 'user', index: 0, text: 'Refund order A18, it never came' },
  ],
  [
    'message substitute',
    { kind: 'message', op: 'substitute', contains: 'refunded', find: '$49', replace: '$40' },
  ],
  ['message delete', { kind: 'message', op: 'delete', index: -1 }],
  ['inject_message user', { kind: 'inject_message', role: 'user', text: 'Also, where is order A18?' }],
  ['inject_message assistant', { kind: 'inject_message', role: 'assistant', text: 'Anything else?' }],
  ['tool_result result', { kind: 'tool_result', tool: 'get_order', result: { order_id: 'A17', total: 12 } }],
  [
    'tool_description',
    { kind: 'tool_description', tool: 'get_order', op: 'append', text: 'Ids look like A17.' },
  ],
  [
    'tool_schema merge',
    {
      kind: 'tool_schema',
      tool: 'get_order',
      op: 'merge',
      parameters: { properties: { order_id: { pattern: '^A[0-9]+$' } } },
    },
  ],
  [
    'tool_schema replace',
    { kind: 'tool_schema', tool: 'get_order', op: 'replace', parameters: { type: 'object', properties: {} } },
  ],
  ['model_params model', { kind: 'model_params', model: 'a-smaller-model' }],
  ['model_params params', { kind: 'model_params', params: { temperature: 0.2, maxTokens: 300, topP: 0.9 } }],
]

describe('applyPatchToWire: every patch kind through every API', () => {
  for (const [api, adapter, wire] of APIS) {
    it.each(PATCHES)(`${api}: %s re-normalizes to the patched request`, (_, patch) => {
      const before = structuredClone(wire)
      const out = applyPatchToWire(patch, wire, adapter)
      expect(out.changed).toBe(true)
      expect(out.missing).toEqual([])
      expect(wire).toEqual(before)
      expect(adapter.normalizeRequest(out.wire)).toEqual(out.request)
      expect(out.wire.headers).toEqual(wire.headers)
    })
  }
})

describe('applyPatchToWire: a counterfactual tool error, as far as each wire carries it', () => {
  const patch: Patch = { kind: 'tool_result', callId: 'call_A17', error: 'upstream timeout' }
  // OpenAI's tool messages have no error flag: the agent reads the error as the tool's output text.
  // Gemini sends it as `response: { error }`, the API's convention, and reads that object back as JSON.
  const carried: Record<string, { content: string; isError: boolean }> = {
    'openai-chat': { content: 'upstream timeout', isError: false },
    'openai-responses': { content: 'upstream timeout', isError: false },
    'anthropic-messages': { content: 'upstream timeout', isError: true },
    gemini: { content: '{"error":"upstream timeout"}', isError: true },
  }
  it.each(APIS)('%s', (api, adapter, wire) => {
    const out = applyPatchToWire(patch, wire, adapter)
    expect(out.request.messages[2]!.parts[0]).toMatchObject({ content: 'upstream timeout', isError: true })
    const back = adapter.normalizeRequest(out.wire)
    expect(back.messages[2]!.parts[0]).toMatchObject(carried[api]!)
    expect({ ...back, messages: back.messages.toSpliced(2, 1) }).toEqual({
      ...out.request,
      messages: out.request.messages.toSpliced(2, 1),
    })
  })
})
