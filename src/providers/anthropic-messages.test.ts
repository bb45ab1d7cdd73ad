import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../case/schema/json.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { anthropicMessages } from './anthropic-messages.ts'
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_SYSTEM,
  CONVERSATION_TOOLS,
} from './internal/test-conversation.ts'
import { ANTHROPIC_CONVERSATION } from './internal/test-conversation-anthropic-gemini.ts'
import { describeGolden } from './internal/test-golden-anthropic-gemini.ts'
import { requestHash } from './request-hash.ts'

const post = (url: string) => ({ method: 'POST', url })

function withBody(body: JsonObject, headers: Record<string, string> = {}): WireRequest {
  return { ...ANTHROPIC_CONVERSATION, headers: { ...ANTHROPIC_CONVERSATION.headers, ...headers }, body }
}

const conversationBody = ANTHROPIC_CONVERSATION.body as JsonObject

describe('anthropicMessages.matches', () => {
  it.each([
    'https://api.anthropic.com/v1/messages',
    'https://api.anthropic.com/v1/messages?beta=true',
    'https://api.anthropic.com/v1/messages/',
    'http://127.0.0.1:4010/v1/messages',
    'https://gateway.ai.cloudflare.com/v1/acct/gw/anthropic/v1/messages',
    'https://openrouter.ai/api/v1/messages',
  ])('takes POST %s', (url) => {
    expect(anthropicMessages.matches(post(url))).toBe(true)
  })

  it.each([
    'https://api.anthropic.com/v1/messages/count_tokens',
    'https://api.anthropic.com/v1/messages/batches',
    'https://api.anthropic.com/v1/messages/batches/msgbatch_01/results',
    'https://api.anthropic.com/v1/models',
    'https://api.anthropic.com/v1/complete',
    'https://api.openai.com/v1/chat/completions',
  ])('leaves POST %s to others', (url) => {
    expect(anthropicMessages.matches(post(url))).toBe(false)
  })

  it('takes only POST', () => {
    expect(anthropicMessages.matches({ method: 'GET', url: 'https://api.anthropic.com/v1/messages' })).toBe(
      false,
    )
    expect(
      anthropicMessages.matches({ method: 'post', url: new URL('https://api.anthropic.com/v1/messages') }),
    ).toBe(true)
  })

  it('streams exactly when the body says stream: true', () => {
    expect(anthropicMessages.isStreaming(withBody({ ...conversationBody, stream: true }))).toBe(true)
    expect(anthropicMessages.isStreaming(withBody({ ...conversationBody, stream: false }))).toBe(false)
    expect(anthropicMessages.isStreaming(ANTHROPIC_CONVERSATION)).toBe(false)
  })
})

describe('the shared conversation', () => {
  it('normalizes to the shared system, messages and tools', () => {
    const normalized = anthropicMessages.normalizeRequest(ANTHROPIC_CONVERSATION)
    expect(normalized.system).toEqual(CONVERSATION_SYSTEM)
    expect(normalized.messages).toEqual(CONVERSATION_MESSAGES)
    expect(normalized.tools).toEqual(CONVERSATION_TOOLS)
    expect(normalized.params).toEqual({ maxTokens: 1024 })
  })

  it('is written back byte for byte', () => {
    const normalized = anthropicMessages.normalizeRequest(ANTHROPIC_CONVERSATION)
    expect(JSON.stringify(anthropicMessages.writeRequest(normalized, ANTHROPIC_CONVERSATION))).toBe(
      JSON.stringify(ANTHROPIC_CONVERSATION),
    )
  })
})

describe('requestHash of Anthropic requests', () => {
  const hash = (wire: WireRequest) =>
    requestHash({ ...wire, normalized: anthropicMessages.normalizeRequest(wire) })
  const base = withBody({ ...conversationBody, metadata: { user_id: 'user-1' } })

  it('ignores metadata and SDK headers', () => {
    const other = withBody(
      { ...conversationBody, metadata: { user_id: 'user-2' } },
      {
        'x-api-key': 'sk-ant-other',
        'user-agent': 'Anthropic/JS 0.137.0',
        'x-stainless-retry-count': '2',
        'x-stainless-package-version': '0.137.0',
        'idempotency-key': 'stainless-node-retry-3f1c',
      },
    )
    expect(hash(other)).toBe(hash(base))
  })

  it('changes with anthropic-version, anthropic-beta and the messages', () => {
    expect(hash(withBody(base.body as JsonObject, { 'anthropic-version': '2026-10-21' }))).not.toBe(
      hash(base),
    )
    expect(hash(withBody(base.body as JsonObject, { 'anthropic-beta': 'context-1m-2025-08-07' }))).not.toBe(
      hash(base),
    )
    const messages = [...(conversationBody.messages as JsonObject[])]
    messages[4] = { role: 'user', content: 'Thanks a lot!' }
    expect(hash(withBody({ ...(base.body as JsonObject), messages }))).not.toBe(hash(base))
  })
})

describe('request normalization', () => {
  it('splits a user turn into tool messages first, then the rest, whatever the wire order', () => {
    const wire = withBody({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here it is.' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAECAw==' } },
              ],
            },
            { type: 'tool_result', tool_use_id: 'toolu_unknown' },
          ],
        },
      ],
    })
    const [, first, second, rest] = anthropicMessages.normalizeRequest(wire).messages
    expect(first).toEqual({
      role: 'tool',
      parts: [
        { type: 'tool_result', id: 'toolu_1', name: 'screenshot', content: '', isError: false },
        { type: 'media', mediaType: 'image/png', bytes: 4, sha256: expect.any(String) },
      ],
    })
    expect(second).toEqual({
      role: 'tool',
      parts: [{ type: 'tool_result', id: 'toolu_unknown', content: '', isError: false }],
    })
    expect(rest).toEqual({ role: 'user', parts: [{ type: 'text', text: 'Here it is.' }] })
  })

  it('keeps unknown blocks out of the parts, and server tools out of the tools', () => {
    const wire = withBody({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'refund law' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            { type: 'text', text: 'Found it.' },
          ],
        },
      ],
    })
    const normalized = anthropicMessages.normalizeRequest(wire)
    expect(normalized.tools).toEqual([])
    expect(normalized.messages).toEqual([{ role: 'assistant', parts: [{ type: 'text', text: 'Found it.' }] }])
    expect(anthropicMessages.writeRequest(normalized, wire)).toEqual(wire)
  })

  it('keeps a described field of the wrong type under its wire name', () => {
    const wire = withBody({ model: 'm', max_tokens: '12', temperature: 'hot', messages: [] })
    expect(anthropicMessages.normalizeRequest(wire).params).toEqual({
      extra: { max_tokens: '12', temperature: 'hot' },
    })
    expect(anthropicMessages.writeRequest(anthropicMessages.normalizeRequest(wire), wire)).toEqual(wire)
  })

  it.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'none' }, 'none'],
    [{ type: 'any' }, 'required'],
    [{ type: 'tool', name: 'get_order' }, { name: 'get_order' }],
  ])('reads tool_choice %j as %j', (choice, expected) => {
    const params = anthropicMessages.normalizeRequest(
      withBody({ ...conversationBody, tool_choice: choice }),
    ).params
    expect(params.toolChoice).toEqual(expected)
    expect(params.extra).toBeUndefined()
  })
})

describeGolden(anthropicMessages, 'anthropic-messages', {
  // A written stream always ends with message_stop, except an error finish, sent as an `error` event.
  writtenStreamIncomplete: (response) => response.finishReason === 'error' || response.finishReason === null,
  // A plain Message has no error stop reason, and tool input must be an object.
  plainCarries: (response) =>
    response.finishReason !== 'error' && response.toolCalls.every((c) => c.args !== null),
})
